/** Session files (storage states) as operators bring them, with values a test can look for where they must not be. */
export const COOKIE_SECRET = 'cookie-value-that-must-never-show-3f9a1c';
export const STORAGE_SECRET = 'local-storage-value-that-must-never-show-77b2';

const inADay = () => Math.floor(Date.now() / 1000) + 86_400;

/** Playwright's storageState of a Google account. */
export function googleState(options: { expires?: number } = {}): string {
  const expires = options.expires ?? inADay();
  return JSON.stringify({
    cookies: [
      {
        name: 'SID',
        value: COOKIE_SECRET,
        domain: '.google.com',
        path: '/',
        expires,
        httpOnly: true,
        secure: true,
        sameSite: 'Lax',
      },
      {
        name: 'NID',
        value: 'n',
        domain: '.google.com',
        path: '/',
        expires,
        httpOnly: true,
        secure: true,
        sameSite: 'None',
      },
    ],
    origins: [{ origin: 'https://meet.google.com', localStorage: [{ name: 'prefs', value: STORAGE_SECRET }] }],
  });
}

/** A bare cookie array as DevTools (and cookie-export extensions) write it. */
export function cookieArray(): string {
  return JSON.stringify([
    {
      name: 'SID',
      value: COOKIE_SECRET,
      domain: '.google.com',
      path: '/',
      expires: -1,
      size: 50,
      httpOnly: true,
      secure: true,
      session: true,
      sameSite: 'None',
      priority: 'High',
    },
    {
      name: 'HSID',
      value: 'h',
      domain: '.google.com',
      path: '/',
      expirationDate: inADay(),
      hostOnly: false,
      httpOnly: true,
      secure: false,
      sameSite: 'unspecified',
    },
    { name: 'ads', value: 'x', domain: '.doubleclick.net', path: '/', expires: -1 },
  ]);
}

/** Playwright's storageState of a Microsoft work or school account signed in to Teams. */
export function teamsState(): string {
  const expires = inADay();
  return JSON.stringify({
    cookies: [
      {
        name: 'ESTSAUTH',
        value: COOKIE_SECRET,
        domain: '.login.microsoftonline.com',
        path: '/',
        expires: -1,
        httpOnly: true,
        secure: true,
        sameSite: 'None',
      },
      { name: 'MSPAuth', value: 'm', domain: 'login.live.com', path: '/', expires, httpOnly: true, secure: true },
      {
        name: 'authtoken',
        value: 't',
        domain: '.teams.microsoft.com',
        path: '/',
        expires,
        httpOnly: false,
        secure: true,
      },
      { name: 'other', value: 'o', domain: '.contoso.example', path: '/', expires },
    ],
    origins: [
      { origin: 'https://teams.microsoft.com', localStorage: [{ name: 'msal.token', value: STORAGE_SECRET }] },
      { origin: 'https://contoso.example', localStorage: [{ name: 'x', value: 'y' }] },
    ],
  });
}
