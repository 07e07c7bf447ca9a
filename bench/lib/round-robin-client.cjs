// autocannon setupClient (loaded by path in its worker thread): every
// connection walks the same list of requests from its own starting point, so
// at any moment the connections are spread over the list's accounts instead of
// all asking for the first one together. The starting points follow the golden
// ratio, which spreads any number of connections evenly without knowing it.
/* global module -- autocannon require()s this file in its worker thread, so it is CommonJS */
let started = 0;

module.exports = function roundRobin(client) {
  const requests = client.opts.requests;
  if (!requests || requests.length < 2) return;
  const offset = Math.floor(((started++ * 0.6180339887) % 1) * requests.length);
  client.setRequests([...requests.slice(offset), ...requests.slice(0, offset)]);
};
