import type { RouteOptions } from 'fastify';

// Under the JSON APIs every query parameter a route does not declare is 400
// unknown_parameter. Validation can only refuse what a route's querystring
// schema rules out, so a route there without a closed declaration (NoQuery
// where it takes none) is refused when it is registered: the app does not
// start, rather than quietly accepting anything.

interface QueryDeclaration {
  additionalProperties?: unknown;
}

/** An onRoute hook refusing routes under `prefixes` whose querystring schema is missing or open. */
export function requireQueryDeclaration(prefixes: readonly string[]): (route: RouteOptions) => void {
  return (route) => {
    if (!prefixes.some((prefix) => route.url.startsWith(prefix))) return;
    const query = route.schema?.querystring as QueryDeclaration | undefined;
    if (query?.additionalProperties !== false) {
      const methods = Array.isArray(route.method) ? route.method.join(',') : route.method;
      throw new Error(
        `${methods} ${route.url}: declare its query parameters (schema.querystring with additionalProperties: false, NoQuery for none)`,
      );
    }
  };
}
