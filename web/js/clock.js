// Clocks as the server reports them (docs/api.md "Clocks"): main_ms is what was left when the
// state was taken; a running clock counts down from there, so the page subtracts the time since it
// received the message. The server stays the judge of time; this only draws it.

import { t } from './i18n.js';

function mmss(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  const h = Math.floor(s / 3600);
  const m = Math.floor((s % 3600) / 60);
  const sec = String(s % 60).padStart(2, '0');
  return h ? `${h}:${String(m).padStart(2, '0')}:${sec}` : `${m}:${sec}`;
}

/**
 * What to show for one clock `elapsed` ms after it was received:
 * {main: "9:58", extra: "5×30s", low: bool, fraction: 0..1 (turn clocks), ms}.
 */
export function clockView(c, elapsed) {
  if (!c) return null;
  const run = c.running ? elapsed : 0;
  let left = (c.main_ms ?? 0) - run;
  const out = { main: '', extra: '', low: false, fraction: null, ms: left };
  switch (c.kind) {
    case 'byo-yomi': {
      let periods = c.periods ?? 0;
      const per = c.period_ms ?? 0;
      if (left <= 0 && per > 0 && (c.main_ms ?? 0) > 0) {
        // Main time ran out while we were counting: carry on into the periods.
        const over = -left;
        periods -= Math.floor(over / per);
        left = per - (over % per);
        out.main = mmss(left);
        out.low = true;
      } else if ((c.main_ms ?? 0) <= 0 && per > 0) {
        // In byo-yomi: main_ms is 0 and the current period runs.
        const inPeriod = (c.period_left_ms ?? per) - run;
        const over = Math.max(0, -inPeriod);
        periods -= Math.floor(over / per);
        left = inPeriod > 0 ? inPeriod : per - (over % per);
        out.main = mmss(left);
        out.low = true;
      } else {
        out.main = mmss(left);
      }
      out.extra = t('clock.periods', Math.max(0, periods), Math.round(per / 1000));
      out.ms = left;
      break;
    }
    case 'canadian': {
      const per = c.period_ms ?? 0;
      if ((c.main_ms ?? 0) <= 0 && per > 0) {
        left = (c.period_left_ms ?? per) - run;
        out.low = true;
      }
      out.main = mmss(left);
      out.extra = per ? t('clock.stones', c.stones ?? 0, mmss(per)) : '';
      out.ms = left;
      break;
    }
    case 'turn': {
      out.main = mmss(left);
      const total = c.turn_ms ?? c.total_ms ?? 60000;
      out.fraction = Math.max(0, Math.min(1, left / total));
      out.low = left < 10000;
      break;
    }
    default: {
      out.main = mmss(left);
      if (c.kind === 'ing' && c.extensions) out.extra = `+${c.extensions}×35′`;
      out.low = left < 30000;
    }
  }
  return out;
}
