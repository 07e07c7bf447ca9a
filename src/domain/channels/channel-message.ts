// What a chat or push message says, before any service's format: plain text
// only. Each format (slack.ts, discord.ts, …) escapes these strings for its
// own markup; none of them is ever interpreted as a template.

export interface ChannelMessage {
  /** one line: what happened, on which monitor */
  title: string;
  /** what changed: values, or the first lines of the diff marked + / - */
  lines: string[];
  /** the change (or the monitor) on the dashboard */
  link: string;
  linkText: string;
  /** monitor.failing: ntfy's priority, the colour of an embed */
  severity: 'change' | 'failing' | 'recovered';
}

/** One HTTP request to a service, with a JSON body: a POST, or a PUT where the API asks for one. */
export interface ChannelRequest {
  method?: 'PUT';
  url: string;
  headers: Record<string, string>;
  body: unknown;
}
