export { startStack } from './stack.js';
export type { Stack, StackOptions } from './stack.js';
