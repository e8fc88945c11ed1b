/**
 * Caption blocks read from their avatars (JavaScript source; see source.ts), as Meet draws its
 * caption blocks and Zoom its caption lines and transcript entries: however many wrapper elements
 * stand between them, a block holds one avatar, the speaker's name beside it (the two make the
 * header) and the text beside the header.
 */
export const CAPTION_BLOCK_HELPERS = String.raw`
function hasText(el) { return /\S/.test(el.textContent); }
/*
 * The block of \`avatar\` (an element matching \`avatars\`) inside \`area\`. The header is the
 * avatar's closest ancestor showing text; the block is the header's closest ancestor with text
 * outside the header's branch, \`area\` itself only when \`areaMayBeBlock\` (a transcript entry
 * is one list item; Meet's caption region never is a block). An ancestor holding a second avatar
 * spans several blocks and is never taken for one. Null when no header can be told; else
 * { header, el, text }, el and text null when no block holds text beside the header (yet).
 */
function captionBlock(avatar, area, avatars, areaMayBeBlock) {
  var count = function (el) { return el.querySelectorAll(avatars).length; };
  var header = avatar.parentElement;
  while (header && header !== area && !hasText(header)) header = header.parentElement;
  if (!header || header === area || count(header) !== 1) return null;
  var branch = header;
  for (var parent = header.parentElement; parent && (parent !== area || areaMayBeBlock) && area.contains(parent); parent = parent.parentElement) {
    if (count(parent) !== 1) break;
    var text = textBeside(parent, branch);
    if (text) return { header: header, el: parent, text: text };
    branch = parent;
  }
  return { header: header, el: null, text: null };
}
/* The text of \`parent\` outside its child \`branch\`. */
function textBeside(parent, branch) {
  var parts = [];
  for (var node = parent.firstChild; node; node = node.nextSibling) if (node !== branch) parts.push(node.textContent);
  return clean(parts.join(' '));
}
`;
