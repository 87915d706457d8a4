/** Small formatting helpers the emulated commands share (date, printf). */

const DAYS = ['Sun', 'Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat'];
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];
const p2 = (n: number) => String(n).padStart(2, '0');
const dayName = (d: Date) => DAYS[d.getUTCDay()] ?? '';
const monthName = (d: Date) => MONTHS[d.getUTCMonth()] ?? '';

/** `date` with no format in a container (TZ unset = UTC): `Mon Nov 23 13:16:57 UTC 2026`. */
export function unixDate(d: Date, format?: string): string {
  if (format === undefined) {
    return `${dayName(d)} ${monthName(d)} ${p2(d.getUTCDate())} ${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())} UTC ${d.getUTCFullYear()}`;
  }
  return format.replace(/%([a-zA-Z%])/g, (_, c: string) => {
    switch (c) {
      case 'Y': return String(d.getUTCFullYear());
      case 'm': return p2(d.getUTCMonth() + 1);
      case 'd': return p2(d.getUTCDate());
      case 'H': return p2(d.getUTCHours());
      case 'M': return p2(d.getUTCMinutes());
      case 'S': return p2(d.getUTCSeconds());
      case 's': return String(Math.floor(d.getTime() / 1000));
      case 'N': return String(d.getUTCMilliseconds() * 1_000_000).padStart(9, '0');
      case 'T': return `${p2(d.getUTCHours())}:${p2(d.getUTCMinutes())}:${p2(d.getUTCSeconds())}`;
      case 'F': return `${d.getUTCFullYear()}-${p2(d.getUTCMonth() + 1)}-${p2(d.getUTCDate())}`;
      case 'Z': return 'UTC';
      case 'a': return dayName(d);
      case 'b': return monthName(d);
      case '%': return '%';
      default: return `%${c}`;
    }
  });
}

/** Backslash escapes of `echo -e` / printf formats. `\c` stops output (returned as stop). */
export function backslashEscapes(s: string): { text: string; stop: boolean } {
  let out = '';
  for (let i = 0; i < s.length; i++) {
    if (s[i] !== '\\' || i + 1 >= s.length) { out += s[i]; continue; }
    const c = s[++i];
    switch (c) {
      case 'n': out += '\n'; break;
      case 't': out += '\t'; break;
      case 'r': out += '\r'; break;
      case '\\': out += '\\'; break;
      case 'a': out += '\x07'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'v': out += '\v'; break;
      case 'e': out += '\x1b'; break;
      case 'c': return { text: out, stop: true };
      case '0': {
        const m = /^[0-7]{0,3}/.exec(s.slice(i + 1))![0];
        out += String.fromCharCode(parseInt(m || '0', 8)); i += m.length; break;
      }
      default: out += '\\' + c;
    }
  }
  return { text: out, stop: false };
}

/** printf(1): the format is reused while arguments remain. */
export function printf(format: string, args: string[]): string {
  let out = '';
  let ai = 0;
  do {
    const start = ai;
    const esc = backslashEscapes(format).text;
    out += esc.replace(/%([-+ 0#]*)(\d*)(?:\.(\d+))?([sdicxXfbou%])/g, (_m, flags: string, width: string, prec: string | undefined, conv: string) => {
      if (conv === '%') return '%';
      const a = args[ai++] ?? '';
      let s: string;
      switch (conv) {
        case 'd': case 'i': case 'u': s = String(Math.trunc(Number(a) || 0)); break;
        case 'x': s = (Math.trunc(Number(a) || 0)).toString(16); break;
        case 'X': s = (Math.trunc(Number(a) || 0)).toString(16).toUpperCase(); break;
        case 'o': s = (Math.trunc(Number(a) || 0)).toString(8); break;
        case 'f': s = (Number(a) || 0).toFixed(prec === undefined ? 6 : Number(prec)); break;
        case 'c': s = a.slice(0, 1); break;
        case 'b': s = backslashEscapes(a).text; break;
        default: s = prec === undefined ? a : a.slice(0, Number(prec));
      }
      const w = Number(width || 0);
      if (s.length < w) s = flags.includes('-') ? s.padEnd(w) : s.padStart(w, flags.includes('0') && conv !== 's' ? '0' : ' ');
      return s;
    });
    if (ai === start) break;
  } while (ai < args.length);
  return out;
}
