import { html, type Html } from '../html.js';

/** The tabs of account settings. */
export function settingsNav(current: 'tokens' | 'accounts'): Html {
  const tab = (key: string, href: string, label: string) =>
    html`<li><a href="${href}" ${current === key ? html` aria-current="page"` : ''}>${label}</a></li>`;
  return html`<nav aria-label="Settings" class="tabs">
    <ul>
      ${tab('tokens', '/settings/tokens', 'API Tokens')}${tab('accounts', '/settings/accounts', 'Accounts')}
    </ul>
  </nav>`;
}
