/** Where the REST API lives: the one definition the API's middleware and the web application share. */
export const API_PREFIX = '/api/v1';

/** Whether a request is for the REST API (the web application leaves those alone). */
export function isApiPath(path: string): boolean {
  return path === API_PREFIX || path.startsWith(`${API_PREFIX}/`);
}
