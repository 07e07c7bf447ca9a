// What one send of a notification came to, for either channel: the
// dispatcher turns it into the row's next state and an attempts-log entry.
export type SendResult =
  | { outcome: 'delivered'; responseStatus: number | null }
  /** worth another attempt later; retryAfterSeconds is the receiver's own request */
  | { outcome: 'retry'; responseStatus: number | null; error: string; retryAfterSeconds?: number }
  /** no attempt will go better (410, a permanent SMTP rejection, an address the SSRF guard refuses) */
  | {
      outcome: 'failed';
      responseStatus: number | null;
      error: string;
      /** a chat service refused the channel itself (revoked credentials, an address the SSRF guard refuses), not only this message */
      channelRefused?: boolean;
    };
