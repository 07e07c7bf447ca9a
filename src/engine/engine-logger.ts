// What the engine logs through (a pino logger fits): failures it goes on after.
export interface EngineLogger {
  error(details: object, message: string): void;
  warn(details: object, message: string): void;
}
