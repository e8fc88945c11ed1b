/**
 * Which participants are other bots, by their names: meetings often hold other notetakers (Otter,
 * Fireflies, Read.ai, Fathom, tl;dv, Gong, Avoma, Grain, MeetGeek, Notta, Sembly, Krisp, the
 * platforms' own recorders, another instance of this bot), and a bot left with only bots is alone.
 * A name is a bot's when one of DEFAULT_BOT_NAME_PATTERNS, or of the operator's
 * BOT_NAME_PATTERNS, matches it (case-insensitive regular expressions), or when it is this
 * service's own display name. The patterns ask for more than a brand word where a person could
 * bear it ("Gong Li" is a person; "Gong", "Gong Recorder" are not).
 */

/** A platform's suffix after a name: Teams' "(Guest)", "(External)", "(Unverified)", a Zoom "(Host)". */
const SUFFIX = String.raw`(\s*\([^()]*\))*`;
const BRANDS = String.raw`otter(\.ai)?|fireflies(\.ai)?|read\.?ai|fathom(\.video)?|tl;?dv|gong(\.io)?|avoma|grain|meetgeek|notta|sembly|krisp|tactiq|supernormal|circleback|bluedot`;
const PRODUCT_WORDS = String.raw`note ?taker|notes?|bot|recorder|recording|assistant|ai|transcri(ber|pt|ption)|companion|copilot`;

export const DEFAULT_BOT_NAME_PATTERNS: readonly string[] = [
  // A brand alone (with a platform's suffix): "Otter.ai", "Fathom", "tl;dv", "Gong (Guest)".
  String.raw`^(${BRANDS})${SUFFIX}$`,
  // A brand with a product word, in either order: "Fireflies.ai Notetaker", "Read.ai meeting notes", "Fred from Fireflies.ai".
  String.raw`\b(${BRANDS})\b.*\b(${PRODUCT_WORDS})\b|\b(${PRODUCT_WORDS})\b.*\b(from|by) (${BRANDS})\b`,
  // Words no person's name holds: "Ada's Notetaker", "Meeting Recorder", "Recording bot", "Zoom AI Companion".
  String.raw`\bnote ?takers?\b|\bnote[- ]taking\b|\brecorder\b|\bmeeting (notes|assistant|bot)\b|\brecording bot\b|\bai (notes|companion|assistant)\b|\btranscription bot\b`,
];

export class BotNames {
  private readonly patterns: RegExp[];

  /** `extra`: the operator's patterns (BOT_NAME_PATTERNS); `ownName`: this service's display name. */
  constructor(
    extra: readonly string[],
    private readonly ownName: string,
  ) {
    this.patterns = [...DEFAULT_BOT_NAME_PATTERNS, ...extra].map((source) => new RegExp(source, 'i'));
  }

  isBot(name: string): boolean {
    const plain = name.replace(/\s+/g, ' ').trim();
    if (plain.toLowerCase() === this.ownName.trim().toLowerCase()) return true;
    return this.patterns.some((pattern) => pattern.test(plain));
  }
}

/** Why a pattern cannot be used, or null: for the configuration's check at start. */
export function badPattern(source: string): string | null {
  try {
    new RegExp(source, 'i');
    return null;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}
