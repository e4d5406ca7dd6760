// The core cases shared with the browser and workerd tests, run here in Node through the
// "node" export of the built package, so that a case failing elsewhere but passing here
// points at the runtime, not at the case.
import { describe } from "node:test";
import * as api from "contextfold";
import { runCases } from "../shared/core-cases.mjs";
import { caseTests } from "../shared/node-report.mjs";

describe("core cases in Node", () => caseTests(() => runCases(api)));
