/**
 * The longest text a regular expression source matches whole (its `^` and `$` anchors read as anchors),
 * Infinity when a `*`, `+` or `{n,}` lets it grow without end. Reads the patterns the request schemas use:
 * literals, escapes, classes, groups (lookarounds count nothing), alternatives and quantifiers.
 */
export function maxPatternLength(source: string): number {
  let at = 0;

  /** One atom's longest match, the cursor after it. */
  function atom(): number {
    const c = source[at]!;
    if (c === '(') {
      at++;
      let zeroWidth = false;
      if (source[at] === '?') {
        const kind = source[at + 1];
        zeroWidth = kind === '=' || kind === '!' || (kind === '<' && (source[at + 2] === '=' || source[at + 2] === '!'));
        at += kind === '<' && zeroWidth ? 3 : 2;
        if (!zeroWidth && kind === '<') at = source.indexOf('>', at) + 1; // a named group
      }
      const inner = alternatives();
      at++; // ')'
      return zeroWidth ? 0 : inner;
    }
    if (c === '[') {
      at++;
      if (source[at] === '^') at++;
      if (source[at] === ']') at++;
      while (source[at] !== ']') at += source[at] === '\\' ? 2 : 1;
      at++;
      return 1;
    }
    if (c === '\\') {
      const next = source[at + 1];
      at += next === 'u' ? 6 : next === 'x' ? 4 : 2;
      return next === 'b' || next === 'B' ? 0 : 1;
    }
    at++;
    return c === '^' || c === '$' ? 0 : 1;
  }

  /** The atom's length times its quantifier's largest count. */
  function quantified(length: number): number {
    const q = source[at];
    let times = 1;
    if (q === '*' || q === '+') {
      at++;
      times = Infinity;
    } else if (q === '?') {
      at++;
    } else if (q === '{') {
      const end = source.indexOf('}', at);
      const [, upper] = /^\{(\d+)(?:,(\d*))?\}$/.exec(source.slice(at, end + 1)) ?? [];
      const parts = source.slice(at + 1, end).split(',');
      times = parts.length === 1 ? Number(upper) : parts[1] === '' ? Infinity : Number(parts[1]);
      at = end + 1;
    } else return length;
    if (source[at] === '?') at++; // lazy
    return length === 0 ? 0 : length * times;
  }

  function sequence(): number {
    let total = 0;
    while (at < source.length && source[at] !== '|' && source[at] !== ')') total += quantified(atom());
    return total;
  }

  function alternatives(): number {
    let longest = sequence();
    while (source[at] === '|') {
      at++;
      longest = Math.max(longest, sequence());
    }
    return longest;
  }

  return alternatives();
}
