// 5-field cron expressions (src/cron.ts, challenge c, decision 0087): what each field allows, the
// next fire in local time, cron's rule for two day fields, and one line naming a field's mistake.
import { expect, test } from "vitest";
import { nextFire, parseCron, shortestGap } from "../src/cron.ts";

// One zone for every machine: a zone with summer time has days of 23 and 25 hours.
process.env.TZ = "UTC";

const at = (text: string) => new Date(text);
// Local times, as cron's are: `YYYY-MM-DDTHH:MM` with no zone is read as local by Date.
const local = (date: Date | undefined) =>
  date === undefined
    ? "none"
    : `${date.getFullYear()}-${String(date.getMonth() + 1).padStart(2, "0")}-${String(date.getDate()).padStart(2, "0")} ${String(date.getHours()).padStart(2, "0")}:${String(date.getMinutes()).padStart(2, "0")}`;

test("*, numbers, ranges, lists and steps, in each field", () => {
  const every5 = parseCron("*/5 * * * *");
  expect([...every5.minutes]).toEqual([0, 5, 10, 15, 20, 25, 30, 35, 40, 45, 50, 55]);
  expect(every5.hours.size).toBe(24);
  const mixed = parseCron("  0,30  9-17/4 1,15 1-3 1-5 ");
  expect(mixed.text).toBe("0,30 9-17/4 1,15 1-3 1-5");
  expect([...mixed.minutes]).toEqual([0, 30]);
  expect([...mixed.hours]).toEqual([9, 13, 17]);
  expect([...mixed.days]).toEqual([1, 15]);
  expect([...mixed.months]).toEqual([1, 2, 3]);
  expect([...mixed.weekdays]).toEqual([1, 2, 3, 4, 5]);
  expect([...parseCron("10/20 * * * *").minutes]).toEqual([10, 30, 50]);
  // 7 is Sunday, as 0 is.
  expect(parseCron("0 0 * * 7").weekdays.has(0)).toBe(true);
});

test("a mistake is one line that names its field", () => {
  const cases: [string, string][] = [
    ["* * * *", "cron takes 5 fields (minute hour day-of-month month day-of-week), got 4"],
    ["* * * * * *", "cron takes 5 fields (minute hour day-of-month month day-of-week), got 6"],
    ["60 * * * *", "cron minute field: 60 is out of range (0-59)"],
    ["* 24 * * *", "cron hour field: 24 is out of range (0-23)"],
    ["* * 0 * *", "cron day-of-month field: 0 is out of range (1-31)"],
    ["* * * 13 *", "cron month field: 13 is out of range (1-12)"],
    ["* * * * MON", 'cron day-of-week field: "MON" is not a number, range or step'],
    ["*/0 * * * *", 'cron minute field: the step in "*/0" must be 1 or more'],
    ["* 5-1 * * *", 'cron hour field: the range "5-1" runs backwards'],
    ["1,,2 * * * *", 'cron minute field: "" is not a number, range or step'],
    ["0 0 31 2 *", 'cron "0 0 31 2 *" never fires (no such day)'],
  ];
  for (const [expression, message] of cases) {
    expect(() => parseCron(expression), expression).toThrow(message);
    expect(message).not.toContain("\n");
  }
});

test("the next fire is the first allowed minute after the time given, in local time", () => {
  expect(local(nextFire(parseCron("*/5 * * * *"), at("2026-12-06T23:07:30")))).toBe(
    "2026-12-06 23:10",
  );
  // On the minute itself: the next one, never the same minute again.
  expect(local(nextFire(parseCron("*/5 * * * *"), at("2026-12-06T23:10:00")))).toBe(
    "2026-12-06 23:15",
  );
  // Weekdays at 9: from a Saturday evening, Monday morning.
  expect(local(nextFire(parseCron("0 9 * * 1-5"), at("2026-12-05T20:00")))).toBe(
    "2026-12-07 09:00",
  );
  // Across a year, and to a leap day.
  expect(local(nextFire(parseCron("0 0 1 1 *"), at("2026-12-31T23:59")))).toBe("2027-01-01 00:00");
  expect(local(nextFire(parseCron("0 12 29 2 *"), at("2026-03-01T00:00")))).toBe(
    "2028-02-29 12:00",
  );
});

test("both day fields restricted: a day matching either fires; one of them * leaves the other", () => {
  // The 15th, or any Monday: from Friday 2026-12-11, Monday the 14th comes first.
  const either = parseCron("0 8 15 * 1");
  expect(local(nextFire(either, at("2026-12-11T12:00")))).toBe("2026-12-14 08:00");
  expect(local(nextFire(either, at("2026-12-14T09:00")))).toBe("2026-12-15 08:00");
  // Only the 15th.
  expect(local(nextFire(parseCron("0 8 15 * *"), at("2026-12-11T12:00")))).toBe("2026-12-15 08:00");
});

test("the shortest gap between fires, in seconds, for the loops' floor", () => {
  const from = at("2026-12-06T23:07");
  expect(shortestGap(parseCron("* * * * *"), from)).toBe(60);
  expect(shortestGap(parseCron("*/5 * * * *"), from)).toBe(300);
  expect(shortestGap(parseCron("0,50 * * * *"), from)).toBe(600);
  expect(shortestGap(parseCron("0 9 * * *"), from)).toBe(86_400);
});
