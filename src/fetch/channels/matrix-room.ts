import { isMatrixRoomId, matrixRoomTarget, type ChannelTarget } from '../../domain/channel-urls.ts';
import { callService, type ChannelSendResult, type ChannelSettings } from './service-call.ts';

// A Matrix channel may name its room by alias (#room:server), as Apprise
// URLs do; messages go to a room id, which the homeserver's directory names
// (client-server API: GET /_matrix/client/v3/directory/room/{roomAlias}).
// The alias is looked up before each message, so a room the alias is moved to
// gets the next alert. An unknown alias is the homeserver's 404, which fails
// the message and marks the channel failing like a refused token.

export type ResolvedRoom = { ok: true; target: ChannelTarget } | { ok: false; result: ChannelSendResult };

function roomIdIn(answer: string | null): string | null {
  try {
    const roomId = (JSON.parse(answer ?? '') as { room_id?: unknown }).room_id;
    return typeof roomId === 'string' && isMatrixRoomId(roomId) ? roomId : null;
  } catch {
    return null;
  }
}

/** The target with the room its alias names; a target without an alias as it is. */
export async function resolveMatrixRoom(settings: ChannelSettings, target: ChannelTarget): Promise<ResolvedRoom> {
  if (!target.matrixAlias) return { ok: true, target };
  const { alias } = target.matrixAlias;
  const lookup = await callService(settings, { method: 'GET', url: target.endpoint, headers: target.headers });
  if (lookup.outcome !== 'delivered') {
    return { ok: false, result: { ...lookup, error: `looking up the room alias ${alias}: ${lookup.error}` } };
  }
  const roomId = roomIdIn(lookup.answer);
  if (roomId === null) {
    const error = `looking up the room alias ${alias}: the homeserver's answer names no room id`;
    return { ok: false, result: { outcome: 'failed', responseStatus: lookup.responseStatus, error, answer: lookup.answer } };
  }
  return { ok: true, target: matrixRoomTarget(target, roomId) };
}
