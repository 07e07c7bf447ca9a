import type { ServiceAnswer } from './service-receivers.ts';

// How each service answers a message whose credentials no longer work (a
// revoked token or key, a deleted webhook), in the status and body its public
// API documentation gives. Most say 401, 403 or 404; Pushover and Google Chat
// say 400 with their own words.

const json = { 'content-type': 'application/json' };

export const REVOKED_CREDENTIAL_ANSWERS: Record<string, { url: string; answer: ServiceAnswer }> = {
  slack: { url: 'slack://T0123ABCD/B0456EFGH/slackSecret123', answer: { status: 403, body: 'invalid_token' } },
  discord: {
    url: 'discord://112233445566/discordToken_1',
    answer: { status: 401, headers: json, body: '{"message": "Invalid Webhook Token", "code": 50027}' },
  },
  ntfy: {
    url: 'ntfy://alerts_topic?token=tk_ntfySecret',
    answer: {
      status: 401,
      headers: json,
      body: '{"code":40101,"http":401,"error":"unauthorized","link":"https://ntfy.sh/docs/publish/#authentication"}',
    },
  },
  teams: {
    url: 'workflows://prod-01.westus.logic.azure.com:443/wf0123abcd/teamsSig_9',
    answer: {
      status: 401,
      headers: json,
      body: '{"error":{"code":"DirectApiInvalidAuthorizationSignature","message":"The provided authorization signature for this request is invalid."}}',
    },
  },
  telegram: {
    url: 'tgram://123456:AAHtelegramSecret/-100200300',
    answer: { status: 401, headers: json, body: '{"ok":false,"error_code":401,"description":"Unauthorized"}' },
  },
  gotify: {
    url: 'gotifys://gotify.example.org/AppTokenSecret1',
    answer: {
      status: 401,
      headers: json,
      body: '{"error":"Unauthorized","errorCode":401,"errorDescription":"you need to provide a valid access token or user credentials to access this api"}',
    },
  },
  pushover: {
    url: 'pover://uQiRzpo4DXghDmr9QzzfQu27cmVRsG@azGDORePK8gMaC0QOYAMyEEuzJnyUi',
    answer: {
      status: 400,
      headers: json,
      body: '{"token":"invalid","errors":["application token is invalid"],"status":0,"request":"5042853c-402d-4a18-abcb-168734a801de"}',
    },
  },
  googlechat: {
    url: 'gchat://AAAAspace1/keySecret1/tokenSecret1',
    answer: {
      status: 400,
      headers: json,
      body: '{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}',
    },
  },
  matrix: {
    url: 'matrixs://syt_matrixSecret@matrix.example.org/!shopRoom:example.org',
    answer: {
      status: 401,
      headers: json,
      body: '{"errcode":"M_UNKNOWN_TOKEN","error":"Invalid access token passed.","soft_logout":false}',
    },
  },
};
