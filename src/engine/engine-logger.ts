// What the engine logs through (a pino logger fits): what it did, at `info`
// (check-log.ts), and failures it goes on after.
export interface EngineLogger {
  info(details: object, message: string): void;
  warn(details: object, message: string): void;
  error(details: object, message: string): void;
}
