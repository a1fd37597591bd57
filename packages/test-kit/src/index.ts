// The test-kit's public entry: everything a stage's tests or the learner checker import.
export { contracts, findContract } from "../contracts/index.ts";
export { githubAnchor, headingAnchors } from "./anchors.ts";
export {
  BUDGET,
  declaredWaitMs,
  isSeeded,
  type LegCost,
  legCost,
  overBudget,
  PLANNED_STAGES,
  type PlannedStage,
  plannedContracts,
  type StageCost as StageRunCost,
} from "./budget.ts";
export {
  type Block,
  reply,
  resetIds,
  type ScriptedResponse,
  text,
  thinking,
  toolUse,
} from "./builders.ts";
export {
  CANARY_TOKEN,
  type Contract,
  type ContractResult,
  type EnvOverrides,
  isPositive,
  judgeRun,
  keepScenarios,
  type Level,
  type Observed,
  observePrepared,
  type PreparedScenario,
  prepareScenario,
  type RunInputs,
  type RunObserved,
  type RunSpec,
  runContract,
  runKey,
  runScenario,
  SCENARIO_DIR_VARIABLE,
  type Scenario,
  type ScenarioContext,
  type ScenarioResult,
  type ScenarioRun,
  type SharedRuns,
  type StdinLine,
} from "./contract.ts";
export {
  CONTRACT_CPU_FILE,
  type ContractCpu,
  type CpuSeconds,
  childCpuSeconds,
  contractCpuMeter,
  ownCpuSeconds,
} from "./cpu.ts";
export { commitFolder } from "./git-folder.ts";
export {
  fileExists,
  fileText,
  newestLog,
  noStrayProcesses,
  resultOf,
  type SentResult,
  sameBody,
} from "./judgements.ts";
export {
  commitSlice,
  contractPlan,
  floorStages,
  isMainLineStage,
  newestStage,
  type PlannedScenario,
  type RunReason,
  runsWhole,
  SLICES,
  scenarioSlice,
  stageOfTest,
  type TestLeg,
  testLeg,
  wholeStages,
} from "./legs.ts";
export { ANTHROPIC_MODELS, DEEPSEEK_MODELS, type ModelEntry, type ModelInfo } from "./models.ts";
export type {
  ChatStep,
  ChatToolCallStep,
  NativeStep,
  ResponsesOutputItem,
  ResponsesStep,
} from "./openai-steps.ts";
export {
  type ChatValidateOptions,
  isReasoningModel,
  type OpenAIViolation,
  type ResponsesMemory,
  type ResponsesValidateOptions,
  validateChatRequest,
  validateResponsesRequest,
} from "./openai-validator.ts";
export { sweepStrayProcesses } from "./processes.ts";
export { type CliRun, type RunCliOptions, runCli, splitCommand } from "./run-cli.ts";
export { type FileEntry, type FileState, readFolder } from "./scenario-folder.ts";
export {
  type RecordedTool,
  ScriptedProvider,
  type ScriptedRequest,
  type ScriptedStep,
  type ScriptedTurn,
} from "./scripted-provider.ts";
export {
  errorEnvelope,
  type FakeServer,
  type FakeServerOptions,
  type Flavour,
  type RecordedRequest,
  type RecordedResponse,
  type Step,
  startFakeServer,
  type Verdict,
} from "./server.ts";
export {
  type ErrorStep,
  type ExtraBlock,
  FAULTS,
  type FaultName,
  type FaultStep,
  parseSteps,
  type RawStep,
  type ReplyBlock,
  type ReplyMessage,
  type ReplyStep,
  type StepExpectation,
  type StepResult,
  SUMMARY_INSTRUCTION,
  summaryStep,
} from "./server-steps.ts";
export {
  chainHash,
  makeSessionLog,
  plantLock,
  projectKey,
  SESSION_ID,
  type SessionLogSpec,
  sessionPath,
} from "./sessions.ts";
export { signThinking, verifyThinking } from "./signature.ts";
export { type Swapper, type SwapSource, startSwapper } from "./swapper.ts";
export { parseArguments, parsePythonLiteral, parseTrace, type TraceEntry } from "./trace.ts";
export { type ValidateOptions, type Violation, validateRequest } from "./validator.ts";
export {
  drawName,
  drawNumber,
  drawWord,
  FIXED_SEED,
  MAX_SEED,
  parseSeed,
  randomSeed,
  type Seeded,
  secondSeed,
} from "./vary.ts";
export {
  BRAVE_CANARY,
  type FakeWeb,
  type FakeWebOptions,
  type SearchHit,
  type SearchQuery,
  startFakeWeb,
  TAVILY_CANARY,
  type WebRequest,
  type WebRoute,
  type WebRoutes,
  type WebSearch,
} from "./web-server.ts";
export type { Wire, WireEvent, WireExchange, WireResponse } from "./wire.ts";
