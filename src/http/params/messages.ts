/**
 * Every generic parameter-validation message, in upstream's wording
 * (typed-endpoint style). Business-rule messages live where the rule lives.
 */
import { listTooLongMessage } from "../../lib/list-limits.js";

export const paramMessages = {
  missing: (name: string) => `Missing '${name}' argument`,
  notValidJson: (name: string) => `${name} is not valid JSON`,
  notInteger: (name: string) => `${name} is not an integer`,
  notBoolean: (name: string) => `${name} is not a boolean`,
  notString: (name: string) => `${name} is not a string`,
  notList: (name: string) => `${name} is not a list`,
  notDict: (name: string) => `${name} is not a dict`,
  notFloat: (name: string) => `${name} is not a float`,
  invalidChoice: (name: string) => `Invalid ${name}`,
  notInList: (name: string) => `Invalid ${name}: Value error, Not in the list of possible values`,
  tooLong: (name: string, limit: number) => `${name} is too long (limit: ${limit} characters)`,
  listTooLong: listTooLongMessage,
  tooShort: (name: string) => `${name} is too short.`,
  tooSmall: (name: string) => `${name} is too small`,
  tooLarge: (name: string) => `${name} is too large`,
  blank: (name: string) => `${name} cannot be blank`,
  badValue: (name: string, raw: string) => `Bad value for '${name}': ${raw}`,
  invalidFormat: (name: string) => `${name} has invalid format`,
  unexpectedKey: (key: string, name: string) => `Argument "${key}" at ${name} is unexpected`,
  keyMissing: (key: string, name: string) => `${key} key is missing from ${name}`,
  confusing: (a: string, b: string) => `Can't decide between '${a}' and '${b}' arguments`,
  malformedPayload: () => "Malformed payload",
} as const;
