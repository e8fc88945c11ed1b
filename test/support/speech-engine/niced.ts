/** A command and its arguments, run through `nice -n N` when a niceness is given. */
export function niced(niceness: number | undefined, command: string, args: string[]): [string, string[]] {
  return niceness === undefined ? [command, args] : ['nice', ['-n', String(niceness), command, ...args]];
}
