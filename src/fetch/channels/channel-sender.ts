import { parseChannelUrl } from '../../domain/channel-urls.ts';
import type { ChannelMessage } from '../../domain/channels/channel-message.ts';
import { channelRequest } from '../../domain/channels/channel-request.ts';
import { refusesChannel } from '../../domain/channels/channel-refusal.ts';
import type { ChannelType } from '../../domain/channel-urls.ts';
import { resolveMatrixRoom } from './matrix-room.ts';
import { callService, type ChannelSendResult, type ChannelSettings } from './service-call.ts';

// One message to a chat or push service in its own format (service-call.ts
// says what each answer means). A Matrix room alias is looked up first. A
// final refusal says whether the service refused the channel itself.

function withRefusal(type: ChannelType, result: ChannelSendResult): ChannelSendResult {
  if (result.outcome !== 'failed' || result.responseStatus === null) return result;
  return { ...result, channelRefused: refusesChannel(type, result.responseStatus, result.answer ?? '') };
}

/** Sends `message` once; `messageId` (the outbox row's id) is the same on every retry, for services that de-duplicate. */
export async function sendChannelMessage(
  settings: ChannelSettings,
  channel: { url: string; messageId: string },
  message: ChannelMessage,
): Promise<ChannelSendResult> {
  const parsed = parseChannelUrl(channel.url);
  if (!parsed.ok)
    return { outcome: 'failed', responseStatus: null, error: `the channel URL is not valid: ${parsed.message}`, answer: null };
  const room = await resolveMatrixRoom(settings, parsed.target);
  if (!room.ok) return withRefusal(parsed.target.type, room.result);
  const request = channelRequest(room.target, message, channel.messageId);
  return withRefusal(parsed.target.type, await callService(settings, { ...request, method: request.method ?? 'POST' }));
}
