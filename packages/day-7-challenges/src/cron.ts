// 5-field cron expressions for loops (challenge c, decision 0087): `minute hour day-of-month month
// day-of-week`, each field `*`, a number, a range `1-5`, a step `*/15` or `10-50/20`, or a list of
// those joined by commas. No names (`MON`, `JAN`), no `@daily`, no seconds field: a mistake names
// its field in one line. Times are the machine's local time, as cron's are.

// A field that cannot be read: the message names it, for `/loop:` and `cron_create`'s error.
export class CronError extends Error {}

interface Field {
  name: string;
  min: number;
  max: number;
}

const FIELDS: readonly Field[] = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day-of-month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12 },
  // 0 and 7 are both Sunday.
  { name: "day-of-week", min: 0, max: 7 },
];

export interface CronSchedule {
  // The expression as written, its fields joined by one space.
  text: string;
  minutes: Set<number>;
  hours: Set<number>;
  days: Set<number>;
  months: Set<number>;
  weekdays: Set<number>;
  // A `*` day field: cron's rule is that when both day fields are restricted, a day matching
  // either one fires; when one is `*`, only the other decides.
  anyDay: boolean;
  anyWeekday: boolean;
}

function number(text: string, field: Field, whole: string): number {
  if (!/^[0-9]{1,9}$/.test(text)) {
    throw new CronError(`cron ${field.name} field: "${whole}" is not a number, range or step`);
  }
  const value = Number(text);
  if (value < field.min || value > field.max) {
    throw new CronError(
      `cron ${field.name} field: ${value} is out of range (${field.min}-${field.max})`,
    );
  }
  return value;
}

// One field: the set of values it allows.
function parseField(text: string, field: Field): Set<number> {
  const values = new Set<number>();
  for (const part of text.split(",")) {
    const [range = "", step, extra] = part.split("/");
    if (extra !== undefined || range === "") {
      throw new CronError(`cron ${field.name} field: "${part}" is not a number, range or step`);
    }
    let from = field.min;
    let to = field.max;
    if (range !== "*") {
      const [first = "", last, more] = range.split("-");
      if (more !== undefined) {
        throw new CronError(`cron ${field.name} field: "${part}" is not a number, range or step`);
      }
      from = number(first, field, part);
      // `5/15` is 5, 20, 35, 50: from the number to the field's end.
      to = last === undefined ? (step === undefined ? from : field.max) : number(last, field, part);
      if (to < from) {
        throw new CronError(`cron ${field.name} field: the range "${range}" runs backwards`);
      }
    }
    let by = 1;
    if (step !== undefined) {
      if (!/^[0-9]{1,2}$/.test(step) || Number(step) === 0) {
        throw new CronError(`cron ${field.name} field: the step in "${part}" must be 1 or more`);
      }
      by = Number(step);
    }
    for (let value = from; value <= to; value += by) values.add(value);
  }
  return values;
}

export function parseCron(expression: string): CronSchedule {
  const words = expression
    .trim()
    .split(/\s+/)
    .filter((word) => word !== "");
  if (words.length !== FIELDS.length) {
    throw new CronError(
      `cron takes 5 fields (minute hour day-of-month month day-of-week), got ${words.length}`,
    );
  }
  const [minutes, hours, days, months, weekdays] = FIELDS.map((field, i) =>
    parseField(words[i] ?? "", field),
  ) as [Set<number>, Set<number>, Set<number>, Set<number>, Set<number>];
  if (weekdays.has(7)) weekdays.add(0);
  const schedule: CronSchedule = {
    text: words.join(" "),
    minutes,
    hours,
    days,
    months,
    weekdays,
    anyDay: words[2] === "*",
    anyWeekday: words[4] === "*",
  };
  if (nextFire(schedule, new Date(2000, 0, 1)) === undefined) {
    throw new CronError(`cron "${schedule.text}" never fires (no such day)`);
  }
  return schedule;
}

function dayMatches(schedule: CronSchedule, at: Date): boolean {
  const day = schedule.days.has(at.getDate());
  const weekday = schedule.weekdays.has(at.getDay());
  if (schedule.anyDay) return weekday;
  if (schedule.anyWeekday) return day;
  return day || weekday;
}

// Eight years cover the longest wait of a schedule that can fire: 29 February, which after 2096
// comes again in 2104 (2100 is no leap year). A weekday set beside it waits less, as either day
// field may match.
const SEARCH_MS = 8 * 366 * 24 * 3600 * 1000;

// The first minute after `after` that the schedule allows, or undefined when none comes in the
// next eight years (`0 0 31 2 *`). A day or an hour that does not match is skipped whole.
export function nextFire(schedule: CronSchedule, after: Date): Date | undefined {
  const at = new Date(after.getTime());
  at.setSeconds(0, 0);
  at.setMinutes(at.getMinutes() + 1);
  const end = after.getTime() + SEARCH_MS;
  while (at.getTime() <= end) {
    if (!schedule.months.has(at.getMonth() + 1)) {
      at.setMonth(at.getMonth() + 1, 1);
      at.setHours(0, 0, 0, 0);
    } else if (!dayMatches(schedule, at)) {
      at.setDate(at.getDate() + 1);
      at.setHours(0, 0, 0, 0);
    } else if (!schedule.hours.has(at.getHours())) {
      at.setHours(at.getHours() + 1, 0, 0, 0);
    } else if (!schedule.minutes.has(at.getMinutes())) {
      at.setMinutes(at.getMinutes() + 1, 0, 0);
    } else {
      return at;
    }
  }
  return undefined;
}

// The shortest time, in seconds, between two fires among the next `count`: what the loops' floor
// is checked against.
export function shortestGap(schedule: CronSchedule, from: Date, count = 1_000): number {
  let shortest = Number.POSITIVE_INFINITY;
  let previous = nextFire(schedule, from);
  for (let i = 0; previous !== undefined && i < count; i++) {
    const next = nextFire(schedule, previous);
    if (next === undefined) break;
    shortest = Math.min(shortest, (next.getTime() - previous.getTime()) / 1000);
    previous = next;
  }
  return shortest;
}
