import type { operations } from './schema.js';

// Names for the request and response bodies of the API, taken from the types
// generated out of openapi.json (schema.d.ts), so they follow the server.

type JsonOf<T> = T extends { content: { 'application/json': infer B } } ? B : never;

/** The JSON body an operation answers with the given status. */
export type ResponseBody<Op extends keyof operations, Status extends keyof operations[Op]['responses']> = JsonOf<
  operations[Op]['responses'][Status]
>;

/** The JSON body an operation takes. */
export type RequestBody<Op extends keyof operations> = operations[Op] extends { requestBody: infer R } ? JsonOf<NonNullable<R>> : never;

/** The query parameters an operation takes. */
export type QueryOf<Op extends keyof operations> = operations[Op]['parameters'] extends { query?: infer Q } ? NonNullable<Q> : never;

export type Monitor = ResponseBody<'getMonitor', 200>['data'];
export type MonitorCreate = RequestBody<'createMonitor'>;
export type MonitorUpdate = RequestBody<'updateMonitor'>;
export type MonitorQuery = Partial<Omit<QueryOf<'listMonitors'>, 'cursor'>>;
export type Target = MonitorCreate['targets'][number];
export type Preview = ResponseBody<'createPreview', 201>['data'];
export type PreviewCreate = RequestBody<'createPreview'>;
/** A browser step (browser mode): run after the page has loaded, before it is read. */
export type Step = NonNullable<PreviewCreate['steps']>[number];
/** What one step of a preview did: ok, or its issue, with the page's URL and title after it. */
export type StepOutcome = Preview['steps'][number];
export type TargetResult = ResponseBody<'evaluatePreview', 200>['data']['targets'][number];
export type Change = ResponseBody<'listChanges', 200>['data'][number];
export type ChangeDetail = ResponseBody<'getChange', 200>['data'];
export type ChangeQuery = Partial<Omit<QueryOf<'listChanges'>, 'cursor'>>;
export type Receipt = ResponseBody<'getCheck', 200>['data'];
export type Usage = ResponseBody<'getUsage', 200>['data'];
export type CheckRun = ResponseBody<'listMonitorChecks', 200>['data'][number];
export type CheckHistoryQuery = Partial<Omit<QueryOf<'listMonitorChecks'>, 'cursor'>>;
export type FeedToken = ResponseBody<'listFeedTokens', 200>['data'][number];
export type FeedTokenCreate = RequestBody<'createFeedToken'>;
export type CreatedFeedToken = ResponseBody<'createFeedToken', 201>['data'];
export type Channel = ResponseBody<'listChannels', 200>['data'][number];
export type ChannelCreate = RequestBody<'createChannel'>;
export type ChannelTestResult = ResponseBody<'testChannel', 200>['data'];
export type ChannelDelivery = ResponseBody<'listChannelDeliveries', 200>['data'][number];
export type Secret = ResponseBody<'listSecrets', 200>['data'][number];
