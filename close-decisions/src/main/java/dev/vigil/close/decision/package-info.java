/**
 * What a close decides, as pure code: the reap budget ({@link dev.vigil.close.decision.ReapBudget}), what counts as
 * progress ({@link dev.vigil.close.decision.ChildWatch}), the survivor diagnosis
 * ({@link dev.vigil.close.decision.SurvivorDiagnosis}), the escalation steps
 * ({@link dev.vigil.close.decision.EscalationStep#plan}) and the outcomes ({@link dev.vigil.close.decision.CloseReport}).
 * Every time is passed in by the caller (an injected clock), so the orchestrator decides live and the replay tool
 * re-decides from the journal with the same code. Depends on the journal's event model only; never on the
 * orchestrator. ({@link dev.vigil.close.decision.ProcSnapshot#read} is the one reader of the outside world here: the
 * evidence it returns is an input of the diagnosis.)
 */
package dev.vigil.close.decision;
