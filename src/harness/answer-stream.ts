/**
 * Picks the answer out of a streaming model turn so a UI can show it as it is written: nothing until
 * `Action: Finish[` has arrived, then the text after it. A trailing `]` and whitespace are held back until
 * more text follows, because the closing bracket of Finish must not be shown (brackets inside the answer
 * are released as soon as something comes after them). Provisional: the released answer, after the
 * citation check, is what counts.
 */
export class FinishStreamer {
  private buf = '';
  private emitted = -1;

  push(delta: string): string {
    this.buf += delta;
    if (this.emitted < 0) {
      const m = /^[ \t]*Action:[ \t]*Finish\[/m.exec(this.buf);
      if (!m) return '';
      this.emitted = m.index + m[0].length;
    }
    let end = this.buf.length;
    while (end > this.emitted && /[\s\]]/.test(this.buf[end - 1]!)) end--;
    const out = this.buf.slice(this.emitted, end);
    this.emitted = end;
    return out;
  }
}
