// The `knotmeter/*` methods as typed requests and notifications for vscode-languageclient.
// Shapes come from `wire.ts` (generated from the Rust protocol crate); nothing is declared
// twice.

import * as lc from "vscode-languageclient/node";
import {
  Methods,
  type CancelParams,
  type ComparedParams,
  type DiscoveredParams,
  type DiscoverParams,
  type DiscoverResult,
  type HistoryParams,
  type HistoryResult,
  type OutputParams,
  type ProfileComparedParams,
  type ProfiledParams,
  type RunEndParams,
  type RunParams,
  type RunResult,
  type RunStateParams,
  type RunStatesParams,
  type SamplesParams,
  type SamplesResult,
  type StoredParams,
  type TreeChangedParams,
} from "./wire";

export const discover = new lc.RequestType<DiscoverParams, DiscoverResult, void>(Methods.discover);
export const discovered = new lc.NotificationType<DiscoveredParams>(Methods.discovered);
export const run = new lc.RequestType<RunParams, RunResult, void>(Methods.run);
export const runState = new lc.NotificationType<RunStateParams>(Methods.runState);
export const output = new lc.NotificationType<OutputParams>(Methods.output);
export const runEnd = new lc.NotificationType<RunEndParams>(Methods.runEnd);
export const cancel = new lc.RequestType<CancelParams, null, void>(Methods.cancel);
export const history = new lc.RequestType<HistoryParams, HistoryResult, void>(Methods.history);
export const stored = new lc.NotificationType<StoredParams>(Methods.stored);
export const treeChanged = new lc.NotificationType<TreeChangedParams>(Methods.treeChanged);
export const runStates = new lc.NotificationType<RunStatesParams>(Methods.runStates);
export const samples = new lc.RequestType<SamplesParams, SamplesResult, void>(Methods.samples);
export const compared = new lc.NotificationType<ComparedParams>(Methods.compared);
export const profiled = new lc.NotificationType<ProfiledParams>(Methods.profiled);
export const profileCompared = new lc.NotificationType<ProfileComparedParams>(Methods.profileCompared);
