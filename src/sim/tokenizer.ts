/**
 * The simulator's tokenizer. Rule: one token per whitespace-separated word. So a prompt of exactly N
 * tokens is N words joined by spaces, and `usage`, /tokenize and the KV accounting all count the same.
 *
 * Ids: the first `vocabularySize` ids are synthetic two-syllable words ("baba", "babe", ...), which is
 * what the simulator generates and what /detokenize returns; `t<N>` spells any other id; any other word
 * gets a stable 31-bit hash id at or above the vocabulary. detokenize(tokenize(x)) keeps the count.
 */
const consonants = "bdfghjklmnprstvwzcyq";
const vowels = "aeiou";
const syllables: string[] = [];
for (const c of consonants) for (const v of vowels) syllables.push(c + v);

export const vocabularySize = syllables.length * syllables.length;
const idsByWord = new Map<string, number>();
const words: string[] = [];
for (let id = 0; id < vocabularySize; id++) {
  const word = syllables[Math.floor(id / syllables.length)]! + syllables[id % syllables.length]!;
  words.push(word);
  idsByWord.set(word, id);
}

/** The token id's text without its separator. */
function wordOf(id: number): string {
  return id >= 0 && id < vocabularySize ? words[id]! : `t${id}`;
}

function hashWord(word: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < word.length; i++) {
    h ^= word.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return vocabularySize + ((h >>> 0) % (0x7fffffff - vocabularySize));
}

function tokenIdOf(word: string): number {
  const known = idsByWord.get(word);
  if (known !== undefined) return known;
  if (/^t\d{1,10}$/.test(word)) {
    const id = Number(word.slice(1));
    if (id <= 0x7fffffff) return id;
  }
  return hashWord(word);
}

function splitWords(text: string): string[] {
  const out: string[] = [];
  for (const word of text.split(/\s+/)) if (word !== "") out.push(word);
  return out;
}

export function tokenize(text: string): number[] {
  return splitWords(text).map(tokenIdOf);
}

export function countTokens(text: string): number {
  let count = 0;
  let inWord = false;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    const space = code === 32 || (code >= 9 && code <= 13) || (code > 127 && /\s/.test(text[i]!));
    if (!space && !inWord) count++;
    inWord = !space;
  }
  return count;
}

export function detokenize(ids: readonly number[]): string {
  return ids.map(wordOf).join(" ");
}

/** The text a generated token adds to a stream: a space before every word but the first. */
export function tokenText(id: number, first: boolean): string {
  return first ? wordOf(id) : ` ${wordOf(id)}`;
}

export interface ChatMessage {
  role: string;
  content: string;
}

/**
 * The chat template: each message is its role as one word, then its content ("user hello there" is 3
 * tokens). The assistant reply starts a new word, so nothing else is added.
 */
export function chatPromptText(messages: readonly ChatMessage[]): string {
  return messages.map((message) => `${message.role} ${message.content}`).join(" ");
}
