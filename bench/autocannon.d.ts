// The part of autocannon's API the benchmarks use (the package ships no types).
declare module 'autocannon' {
  interface Options {
    url: string;
    connections?: number;
    duration?: number;
    headers?: Record<string, string>;
    /** worker threads; 0 runs in the calling thread */
    workers?: number;
    /** the sequence each connection walks; paths replace the url's */
    requests?: { method?: string; path?: string; headers?: Record<string, string> }[];
    /** path of a module exporting a function given each connection's client (a path in worker mode) */
    setupClient?: string;
  }
  interface Result {
    requests: { average: number; total: number };
    latency: { p50: number; p99: number; average: number };
    '2xx': number;
    non2xx: number;
    errors: number;
    timeouts: number;
  }
  function autocannon(options: Options): Promise<Result>;
  export default autocannon;
}
