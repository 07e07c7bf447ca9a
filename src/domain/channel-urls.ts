// Notification channels are made from Apprise-style URLs (DESIGN §8
// Channels), so what a changedetection.io user already has can be pasted.
// Parsing is pure: it yields the service, the HTTPS endpoint a message is
// posted to, and the URL with its secret parts masked for display.

export const CHANNEL_TYPES = ['slack', 'discord', 'ntfy', 'teams', 'telegram', 'gotify', 'pushover', 'googlechat', 'matrix'] as const;
export type ChannelType = (typeof CHANNEL_TYPES)[number];

export interface ChannelTarget {
  type: ChannelType;
  /** where messages are posted */
  endpoint: string;
  /** request headers the service needs beyond content-type (ntfy's access token or basic auth) */
  headers: Record<string, string>;
  /** Telegram's chat: a message names it in its body */
  chatId?: string;
  /** Pushover's application token and user key, which a message carries in its body */
  pushover?: { token: string; user: string };
  /**
   * A Matrix room named by its alias (#room:server): `endpoint` is then the
   * homeserver's directory entry of the alias, which names the room id that
   * messages are sent to (matrixRoomTarget).
   */
  matrixAlias?: { homeserver: string; alias: string };
  /** the URL as it may be shown: secret parts replaced */
  masked: string;
}

export type ParsedChannel = { ok: true; target: ChannelTarget } | { ok: false; message: string };

const SECRET = '***';

/** The first characters of an identifier, enough to recognise it, never the whole. */
function hint(part: string): string {
  return `${part.slice(0, Math.min(4, Math.max(1, part.length - 4)))}…`;
}

const TOKEN = /^[A-Za-z0-9_-]+$/;

function segments(url: URL): string[] {
  return url.pathname.split('/').filter((s) => s !== '');
}

function fail(message: string): ParsedChannel {
  return { ok: false, message };
}

// slack://TokenA/TokenB/TokenC: the three parts of an incoming webhook's hooks.slack.com/services/ path.
function slack(url: URL): ParsedChannel {
  const parts = [url.hostname, ...segments(url)];
  if (parts.length !== 3 || !parts.every((p) => TOKEN.test(p)))
    return fail('slack://TokenA/TokenB/TokenC (the parts of an incoming webhook URL)');
  const [a, b, c] = parts as [string, string, string];
  return {
    ok: true,
    target: {
      type: 'slack',
      endpoint: `https://hooks.slack.com/services/${a}/${b}/${c}`,
      headers: {},
      masked: `slack://${hint(a)}/${hint(b)}/${SECRET}`,
    },
  };
}

// discord://WebhookID/WebhookToken
function discord(url: URL): ParsedChannel {
  const parts = [url.hostname, ...segments(url)];
  if (parts.length !== 2 || !/^\d+$/.test(parts[0]!) || !TOKEN.test(parts[1]!)) return fail('discord://WebhookID/WebhookToken');
  const [id, token] = parts as [string, string];
  return {
    ok: true,
    target: {
      type: 'discord',
      endpoint: `https://discord.com/api/webhooks/${id}/${token}`,
      headers: {},
      masked: `discord://${id}/${SECRET}`,
    },
  };
}

// ntfy://topic (ntfy.sh), ntfy://[user:password@]host[:port]/topic (http), ntfys://… (https); ?token= for an access token.
function ntfy(url: URL, secure: boolean): ParsedChannel {
  const path = segments(url);
  const onNtfySh = path.length === 0;
  const topic = onNtfySh ? url.hostname : path[0];
  if (topic === undefined || path.length > 1 || !/^[-_A-Za-z0-9]{1,64}$/.test(topic))
    return fail('ntfy://topic or ntfys://[user:password@]host[:port]/topic');
  const base = onNtfySh ? 'https://ntfy.sh' : `${secure ? 'https' : 'http'}://${url.host}`;
  const headers: Record<string, string> = {};
  const token = url.searchParams.get('token');
  const user = decodeURIComponent(url.username);
  if (token) headers.authorization = `Bearer ${token}`;
  else if (user) headers.authorization = `Basic ${Buffer.from(`${user}:${decodeURIComponent(url.password)}`).toString('base64')}`;
  const auth = user ? `${url.username}:${SECRET}@` : '';
  const where = onNtfySh ? hint(topic) : `${url.host}/${hint(topic)}`;
  return {
    ok: true,
    target: {
      type: 'ntfy',
      endpoint: `${base}/${topic}`,
      headers,
      masked: `${secure ? 'ntfys' : 'ntfy'}://${auth}${where}${token ? `?token=${SECRET}` : ''}`,
    },
  };
}

// workflows://host[:port]/WorkflowID/Signature: a Teams "post to a channel when a webhook request is received" workflow.
function teams(url: URL): ParsedChannel {
  const parts = segments(url);
  if (parts.length !== 2 || !url.hostname || !parts.every((p) => TOKEN.test(p)))
    return fail('workflows://host[:port]/WorkflowID/Signature');
  const [workflow, signature] = parts as [string, string];
  const query = new URLSearchParams({ 'api-version': '2016-06-01', sp: '/triggers/manual/run', sv: '1.0', sig: signature });
  return {
    ok: true,
    target: {
      type: 'teams',
      endpoint: `https://${url.host}/workflows/${workflow}/triggers/manual/paths/invoke?${query.toString()}`,
      headers: {},
      masked: `workflows://${url.host}/${workflow}/${SECRET}`,
    },
  };
}

// gotify://host[:port][/path]/AppToken (http), gotifys://… (https); the token travels in X-Gotify-Key.
function gotify(url: URL, secure: boolean): ParsedChannel {
  const parts = segments(url);
  const token = parts.pop();
  if (!url.hostname || token === undefined || !TOKEN.test(token)) return fail('gotify://host[:port]/AppToken or gotifys://…');
  const path = parts.map((p) => `/${p}`).join('');
  return {
    ok: true,
    target: {
      type: 'gotify',
      endpoint: `${secure ? 'https' : 'http'}://${url.host}${path}/message`,
      headers: { 'x-gotify-key': token },
      masked: `${secure ? 'gotifys' : 'gotify'}://${url.host}${path}/${SECRET}`,
    },
  };
}

// pover://UserKey@AppToken, both parts exactly 30 letters and digits.
function pushover(text: string): ParsedChannel {
  const match = /^pover:\/\/([A-Za-z0-9]{30})@([A-Za-z0-9]{30})\/?$/.exec(text);
  if (!match) return fail('pover://UserKey@AppToken (30 letters and digits each)');
  const [, user, token] = match as unknown as [string, string, string];
  return {
    ok: true,
    target: {
      type: 'pushover',
      endpoint: 'https://api.pushover.net/1/messages.json',
      headers: {},
      pushover: { token, user },
      masked: `pover://${hint(user)}@${SECRET}`,
    },
  };
}

// gchat://Space/Key/Token: the parts of a Google Chat space's incoming webhook URL.
function googleChat(url: URL): ParsedChannel {
  const parts = [url.hostname, ...segments(url)];
  if (parts.length !== 3 || !parts.every((p) => TOKEN.test(p)))
    return fail('gchat://Space/Key/Token (the parts of an incoming webhook URL)');
  const [space, key, token] = parts as [string, string, string];
  return {
    ok: true,
    target: {
      type: 'googlechat',
      endpoint: `https://chat.googleapis.com/v1/spaces/${space}/messages?${new URLSearchParams({ key, token }).toString()}`,
      headers: {},
      masked: `gchat://${space}/${SECRET}/${SECRET}`,
    },
  };
}

// matrix://AccessToken@host[:port]/Room (http), matrixs://… (https). The room is an id (!id:server) or, as
// in Apprise, an alias (#alias:server; its # written as is or as %23); a room without :server is on the homeserver.
const MATRIX_ROOM = /^([!#])([^/:#]+)(?::([^/#]+))?$/;

function matrixSendEndpoint(homeserver: string, roomId: string): string {
  return `${homeserver}/_matrix/client/v3/rooms/${encodeURIComponent(roomId)}/send/m.room.message`;
}

function matrix(url: URL, secure: boolean): ParsedChannel {
  const token = decodeURIComponent(url.username);
  const path = decodeURIComponent(url.pathname.slice(1));
  const match = MATRIX_ROOM.exec(path === '' ? decodeURIComponent(url.hash) : url.hash === '' ? path : '');
  if (!TOKEN.test(token) || url.password !== '' || !url.hostname || !match) {
    return fail('matrixs://AccessToken@host[:port]/!RoomID:server or …/#RoomAlias:server');
  }
  const [, sigil, name, server = url.hostname] = match as unknown as [string, '!' | '#', string, string | undefined];
  const room = `${sigil}${name}:${server}`;
  const homeserver = `${secure ? 'https' : 'http'}://${url.host}`;
  const target: ChannelTarget = {
    type: 'matrix',
    endpoint:
      sigil === '!' ? matrixSendEndpoint(homeserver, room) : `${homeserver}/_matrix/client/v3/directory/room/${encodeURIComponent(room)}`,
    headers: { authorization: `Bearer ${token}` },
    masked: `${secure ? 'matrixs' : 'matrix'}://${SECRET}@${url.host}/${room}`,
  };
  return { ok: true, target: sigil === '!' ? target : { ...target, matrixAlias: { homeserver, alias: room } } };
}

/** A room id as a homeserver's directory names one (!opaque:server). */
export function isMatrixRoomId(text: string): boolean {
  return /^![^/:]+:[^/]+$/.test(text);
}

/** The target of a Matrix alias channel once its room id is known: messages go to that room. */
export function matrixRoomTarget(target: ChannelTarget, roomId: string): ChannelTarget {
  if (!target.matrixAlias) return target;
  const { matrixAlias, ...rest } = target;
  return { ...rest, endpoint: matrixSendEndpoint(matrixAlias.homeserver, roomId) };
}

/** The channel an Apprise-style URL names, or what a valid URL of its kind looks like. */
export function parseChannelUrl(text: string): ParsedChannel {
  const scheme = /^([a-z]+):\/\//.exec(text)?.[1];
  if (scheme === 'tgram') return telegramUrl(text);
  if (scheme === 'pover') return pushover(text);
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return fail('not a URL');
  }
  switch (scheme) {
    case 'slack':
      return slack(url);
    case 'discord':
      return discord(url);
    case 'ntfy':
    case 'ntfys':
      return ntfy(url, scheme === 'ntfys');
    case 'workflow':
    case 'workflows':
      return teams(url);
    case 'gotify':
    case 'gotifys':
      return gotify(url, scheme === 'gotifys');
    case 'gchat':
      return googleChat(url);
    case 'matrix':
    case 'matrixs':
      return matrix(url, scheme === 'matrixs');
    default:
      return fail(
        'one of slack://, discord://, ntfy://, ntfys://, workflows://, tgram://, gotify://, gotifys://, pover://, gchat://, matrix://, matrixs://',
      );
  }
}

// tgram://BotToken/ChatID. A bot token's colon would be read as a port by URL, and its secret is no port number: split by hand.
function telegramUrl(text: string): ParsedChannel {
  const match = /^tgram:\/\/(\d+):([A-Za-z0-9_-]+)\/(-?\d+|@\w+)\/?$/.exec(text);
  if (!match) return fail('tgram://BotToken/ChatID');
  const [, id, secret, chat] = match as unknown as [string, string, string, string];
  return {
    ok: true,
    target: {
      type: 'telegram',
      endpoint: `https://api.telegram.org/bot${id}:${secret}/sendMessage`,
      headers: {},
      chatId: chat,
      masked: `tgram://${id}:${SECRET}/${chat}`,
    },
  };
}
