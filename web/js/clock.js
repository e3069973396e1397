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

/** Days and hours ("2 days 5 h"), for a correspondence clock with a day or more left. */
export function daysHours(ms) {
  const hours = Math.max(0, Math.floor(ms / 3600000));
  const days = Math.floor(hours / 24);
  return t(days === 1 ? 'clock.day' : 'clock.days', days, hours % 24);
}

/**
 * What to show for one clock `elapsed` ms after it was received:
 * {main: "9:58", extra: "5×30s", low: bool, fraction: 0..1 (turn clocks), ms}.
 */
export function clockView(c, elapsed) {
  if (!c) return null;
  // A correspondence clock stopped for its side's weekend or vacation does not count down.
  const run = c.running && !c.paused ? elapsed : 0;
  let left = (c.main_ms ?? 0) - run;
  const out = { main: '', extra: '', low: false, fraction: null, ms: left };
  switch (c.kind) {
    case 'byo-yomi': {
      // The server's view: main_ms left; once it is 0, period_ms is what is left of the current
      // period (period_length_ms each) and periods how many remain.
      const len = c.period_length_ms ?? c.period_ms ?? 0;
      let periods = c.periods ?? 0;
      let inPeriod = (c.main_ms ?? 0) > 0 ? null : c.period_ms || len;
      if (inPeriod === null && left < 0 && len > 0) {
        inPeriod = len + left; // main time ran out while we were counting
      } else if (inPeriod !== null) {
        inPeriod -= run;
      }
      if (inPeriod !== null && len > 0) {
        while (inPeriod <= 0 && periods > 1) {
          periods -= 1;
          inPeriod += len;
        }
        out.main = mmss(inPeriod);
        out.low = true;
        out.ms = inPeriod;
      } else {
        out.main = mmss(left);
      }
      out.extra = t('clock.periods', Math.max(0, periods), Math.round(len / 1000));
      break;
    }
    case 'canadian': {
      const len = c.period_length_ms ?? c.period_ms ?? 0;
      const per = c.stones_per_period ?? c.stones ?? 0;
      if ((c.main_ms ?? 0) <= 0 && len > 0) {
        left = (c.period_ms || len) - run;
        out.low = true;
        out.extra = t('clock.stones', c.stones || per, mmss(len));
      } else {
        out.extra = len ? t('clock.stones', per, mmss(len)) : '';
      }
      out.main = mmss(left);
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
    case 'correspondence': {
      out.main = left >= 86400000 ? daysHours(left) : mmss(left);
      out.extra = c.paused ? t('clock.paused') : '';
      out.low = left < 86400000;
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
