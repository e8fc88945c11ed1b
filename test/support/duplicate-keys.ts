/**
 * The keys that appear twice in one object of a JSON text. `JSON.parse` keeps the last value and
 * says nothing, which is exactly how a log line with `"service"` twice went unnoticed; log stores
 * reject or drop such lines. A small scanner of the JSON grammar, enough for log lines: it throws
 * on text that is not JSON.
 */
export function duplicateKeys(text: string): string[] {
  let at = 0;
  const found: string[] = [];

  const fail = (): never => {
    throw new SyntaxError(`not JSON at ${at}: ${text.slice(at, at + 20)}`);
  };
  const space = () => {
    while (at < text.length && ' \t\r\n'.includes(text[at])) at++;
  };
  const expectChar = (char: string) => {
    space();
    if (text[at] !== char) fail();
    at++;
  };
  const string = (): string => {
    const start = at;
    expectChar('"');
    while (at < text.length && text[at] !== '"') at += text[at] === '\\' ? 2 : 1;
    expectChar('"');
    return JSON.parse(text.slice(start, at)) as string;
  };
  const value = (): void => {
    space();
    const char = text[at];
    if (char === '{') return object();
    if (char === '[') return array();
    if (char === '"') return void string();
    const literal = /^(?:true|false|null|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)/.exec(text.slice(at, at + 40));
    if (!literal) fail();
    at += literal![0].length;
  };
  const object = (): void => {
    expectChar('{');
    const keys = new Set<string>();
    space();
    if (text[at] === '}') return void at++;
    for (;;) {
      const key = string();
      if (keys.has(key)) found.push(key);
      keys.add(key);
      expectChar(':');
      value();
      space();
      if (text[at] === '}') return void at++;
      expectChar(',');
    }
  };
  const array = (): void => {
    expectChar('[');
    space();
    if (text[at] === ']') return void at++;
    for (;;) {
      value();
      space();
      if (text[at] === ']') return void at++;
      expectChar(',');
    }
  };

  value();
  space();
  if (at !== text.length) fail();
  return found;
}
