/**
 * Page scripts are kept as JavaScript source text rather than functions handed to
 * page.evaluate: the TypeScript toolchain rewrites functions (helpers such as __name) in ways that
 * do not survive serialisation into the page. A call is one expression: the shared helpers, the
 * platform's functions, the platform's selectors as literals, then the action to run.
 */

/** A JavaScript literal for selector data: strings, RegExps, arrays and plain objects. */
export function jsLiteral(value: unknown): string {
  if (value instanceof RegExp) return value.toString();
  if (Array.isArray(value)) return `[${value.map(jsLiteral).join(',')}]`;
  if (value && typeof value === 'object') {
    return `{${Object.entries(value)
      .map(([key, v]) => `${JSON.stringify(key)}:${jsLiteral(v)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

/**
 * Builds `(action, arg) => source` for a platform. `body` defines a function `run(action, arg)`;
 * the helpers in DOM_HELPERS and the selectors (as `S`) are in scope.
 */
export function pageProgram(
  helpers: string,
  body: string,
  selectors: unknown,
): (action: string, arg?: unknown) => string {
  const prefix = `(function (S, action, arg) {\n'use strict';\n${helpers}\n${body}\nreturn run(action, arg);\n})(${jsLiteral(selectors)}, `;
  return (action, arg) => `${prefix}${JSON.stringify(action)}, ${JSON.stringify(arg ?? null)})`;
}
