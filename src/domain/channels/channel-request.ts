import type { ChannelTarget } from '../channel-urls.ts';
import type { ChannelMessage, ChannelRequest } from './channel-message.ts';
import { slackRequest } from './slack.ts';
import { discordRequest } from './discord.ts';
import { ntfyRequest } from './ntfy.ts';
import { teamsRequest } from './teams.ts';
import { telegramRequest } from './telegram.ts';
import { gotifyRequest } from './gotify.ts';
import { pushoverRequest } from './pushover.ts';
import { googleChatRequest } from './google-chat.ts';
import { matrixRequest } from './matrix.ts';

/** The request that posts the message in the channel's service's own format; messageId stays the same across retries. */
export function channelRequest(target: ChannelTarget, message: ChannelMessage, messageId: string): ChannelRequest {
  switch (target.type) {
    case 'slack':
      return slackRequest(target, message);
    case 'discord':
      return discordRequest(target, message);
    case 'ntfy':
      return ntfyRequest(target, message);
    case 'teams':
      return teamsRequest(target, message);
    case 'telegram':
      return telegramRequest(target, message);
    case 'gotify':
      return gotifyRequest(target, message);
    case 'pushover':
      return pushoverRequest(target, message);
    case 'googlechat':
      return googleChatRequest(target, message);
    case 'matrix':
      return matrixRequest(target, message, messageId);
  }
}
