/**
 * Vitest reporter for `npm run test:contract-coverage`: clears the contract check's
 * records when the run starts and, when it ends, writes docs/contract-coverage.md.
 */
import fs from "node:fs";
import type { Reporter } from "vitest/node";
import { COVERAGE_DIR } from "./coverage.js";
import { buildCoverageReport, readCoverageRecords } from "./coverage-report.js";
import { openapiDocument } from "./document.js";

export const REPORT_FILE = "docs/contract-coverage.md";

export default class ContractCoverageReporter implements Reporter {
  onInit(): void {
    // PARLEY_CONTRACT_KEEP=1: rebuild the report from the records of earlier runs.
    if (process.env.PARLEY_CONTRACT_KEEP !== "1") fs.rmSync(COVERAGE_DIR, { recursive: true, force: true });
  }

  onTestRunEnd(): void {
    const doc = openapiDocument();
    if (!doc) {
      process.stdout.write("Contract coverage: ../shared/reference/openapi/zulip.yaml is absent, no report.\n");
      return;
    }
    const report = buildCoverageReport(doc, readCoverageRecords(COVERAGE_DIR));
    fs.writeFileSync(REPORT_FILE, report.markdown);
    process.stdout.write(
      `Contract coverage: ${report.untested} documented operations never exercised, ${report.undocumented} undocumented; see ${REPORT_FILE}\n`,
    );
  }
}
