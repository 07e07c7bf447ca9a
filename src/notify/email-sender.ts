import nodemailer from 'nodemailer';
import type { ChangeEmail } from './email-message.ts';
import type { SendResult } from './send-result.ts';

// Email over PAGEWATCH_SMTP_URL with nodemailer. The timeouts keep one send
// well inside the dispatcher's lease; a 5xx SMTP reply is permanent (e.g. an
// unknown recipient), anything else — a 4xx, a refused or broken connection —
// is tried again later.

export interface Mailer {
  send(to: string, message: ChangeEmail): Promise<SendResult>;
  close(): void;
}

function replyCode(response: unknown): number | null {
  const match = typeof response === 'string' ? /^(\d{3})/.exec(response) : null;
  return match ? Number(match[1]) : null;
}

export function createMailer(smtpUrl: string, from: string): Mailer {
  const transport = nodemailer.createTransport({ url: smtpUrl, connectionTimeout: 10_000, greetingTimeout: 10_000, socketTimeout: 30_000 });
  return {
    async send(to, message) {
      try {
        const info = await transport.sendMail({ from, to, subject: message.subject, text: message.text, html: message.html });
        return { outcome: 'delivered', responseStatus: replyCode(info.response) };
      } catch (err) {
        const error = err as Error & { responseCode?: number };
        const responseStatus = typeof error.responseCode === 'number' ? error.responseCode : null;
        const outcome = responseStatus !== null && responseStatus >= 500 ? 'failed' : 'retry';
        return { outcome, responseStatus, error: error.message };
      }
    },
    close() {
      transport.close();
    },
  };
}
