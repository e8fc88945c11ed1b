export { startStack } from './stack.js';
export type { Stack } from './stack.js';
