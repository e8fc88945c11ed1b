/**
 * Page scripts are kept as JavaScript source text rather than functions handed to
 * page.evaluate: the TypeScript toolchain rewrites functions (helpers such as __name) in ways that
 * do not survive serialisation into the page. A call is one expression: the shared helpers, the
 * platform's functions, the platform's selectors as literals, then the action to run.
 */
import type { ActionName } from '../page-actions.js';

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
 * What a platform's page script answers: per action of the table (page-actions.ts), a JavaScript
 * expression of `arg` giving its result. An action left out is not the platform's (Teams has no
 * captions button to press); a name that is not in the table does not compile.
 */
export type PageHandlers = { readonly [K in ActionName]?: string };

/**
 * Builds `(action, arg) => source` for a platform. `body` defines the functions `handlers` call;
 * the helpers in DOM_HELPERS and the selectors (as `S`) are in scope.
 */
export function pageProgram(
  helpers: string,
  body: string,
  selectors: unknown,
  handlers: PageHandlers,
): (action: string, arg?: unknown) => string {
  const cases = Object.entries(handlers)
    .map(([name, expression]) => `    case ${JSON.stringify(name)}: return ${expression};`)
    .join('\n');
  const run = `function run(action, arg) {\n  switch (action) {\n${cases}\n  }\n  throw new Error('unknown action ' + action);\n}`;
  const prefix = `(function (S, action, arg) {\n'use strict';\n${helpers}\n${body}\n${run}\nreturn run(action, arg);\n})(${jsLiteral(selectors)}, `;
  return (action, arg) => `${prefix}${JSON.stringify(action)}, ${JSON.stringify(arg ?? null)})`;
}
