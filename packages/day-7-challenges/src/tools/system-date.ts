// system_date: the model has no clock, so a tool tells it the date, time and zone.
import type { Tool } from "./index.ts";

// The model has no clock: this is how it learns the date. The zone is named as the platform names
// it (UTC, GMT+8, CET).
export function systemDate(): string {
  const now = new Date();
  const pad = (value: number) => String(value).padStart(2, "0");
  const zone = new Intl.DateTimeFormat("en-US", { timeZoneName: "short" })
    .formatToParts(now)
    .find((part) => part.type === "timeZoneName")?.value;
  const date = `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
  const time = `${pad(now.getHours())}:${pad(now.getMinutes())}:${pad(now.getSeconds())}`;
  return `${date} ${time} ${zone ?? "UTC"}`;
}

export const systemDateTool: Tool = {
  name: "system_date",
  description: "Return the current local date, time and time zone of this machine.",
  run: systemDate,
  readOnly: true,
};
