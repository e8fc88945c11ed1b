import { html, type Html } from '../html.js';

/** The tabs of account settings; Bot accounts only for the owner account, the one who manages them. */
export function settingsNav(current: 'tokens' | 'accounts' | 'bot-accounts', owner = false): Html {
  const tab = (key: string, href: string, label: string) =>
    html`<li><a href="${href}" ${current === key ? html` aria-current="page"` : ''}>${label}</a></li>`;
  return html`<nav aria-label="Settings" class="tabs">
    <ul>
      ${tab('tokens', '/settings/tokens', 'API Tokens')}${tab('accounts', '/settings/accounts', 'Accounts')}${
        owner && tab('bot-accounts', '/settings/bot-accounts', 'Bot accounts')
      }
    </ul>
  </nav>`;
}
