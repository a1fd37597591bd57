// Every stage's contract, in course order.
import type { Contract } from "../src/contract.ts";
import { appendixProviders } from "./appendix-providers.ts";
import { day1 } from "./day-1.ts";
import { day2challenges } from "./day-2-challenges.ts";
import { day2v1 } from "./day-2-v1.ts";
import { day2v2 } from "./day-2-v2.ts";
import { day2v3 } from "./day-2-v3.ts";
import { day3challenges } from "./day-3-challenges.ts";
import { day3v1 } from "./day-3-v1.ts";
import { day3v2 } from "./day-3-v2.ts";
import { day3v3 } from "./day-3-v3.ts";
import { day3v4 } from "./day-3-v4.ts";
import { day4v1 } from "./day-4-v1.ts";
import { day4v2 } from "./day-4-v2.ts";
import { day4v3 } from "./day-4-v3.ts";
import { day5challenges } from "./day-5-challenges.ts";
import { day5v1 } from "./day-5-v1.ts";
import { day5v2 } from "./day-5-v2.ts";
import { day5v3 } from "./day-5-v3.ts";
import { day5v4 } from "./day-5-v4.ts";
import { day5v5 } from "./day-5-v5.ts";
import { day6challenges } from "./day-6-challenges.ts";
import { day6v1 } from "./day-6-v1.ts";
import { day6v2 } from "./day-6-v2.ts";
import { day6v3 } from "./day-6-v3.ts";
import { day6v4 } from "./day-6-v4.ts";
import { day6v5 } from "./day-6-v5.ts";
import { day7challenges } from "./day-7-challenges.ts";
import { day7v1 } from "./day-7-v1.ts";
import { day7v2 } from "./day-7-v2.ts";
import { day7v3 } from "./day-7-v3.ts";
import { day7v4 } from "./day-7-v4.ts";
import { day7v5 } from "./day-7-v5.ts";

export const contracts: Contract[] = [
  day1,
  day2v1,
  day2v2,
  day2v3,
  day2challenges,
  day3v1,
  day3v2,
  day3v3,
  day3v4,
  day3challenges,
  day4v1,
  day4v2,
  day4v3,
  day5v1,
  day5v2,
  day5v3,
  day5v4,
  day5v5,
  day5challenges,
  day6v1,
  day6v2,
  day6v3,
  day6v4,
  day6v5,
  day6challenges,
  day7v1,
  day7v2,
  day7v3,
  day7v4,
  day7v5,
  day7challenges,
  appendixProviders,
];

export function findContract(stage: string): Contract | undefined {
  return contracts.find((contract) => contract.stage === stage);
}
