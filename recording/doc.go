// Package recording owns how a replay is matched with the recording it
// replays: which recorded branch it compares with (OriginalRun), where its
// run starts so that the recorded superstep runs again whole (RunFrom),
// which recorded task a replay's task stands for (Step.Pair), which
// recorded answer each of its interrupts is offered (Step.Answers), and
// when the two diverge and why (Step.Judge, Step.JudgeCall,
// Step.SameFailure), and when a replay that fails goes on as the recorded
// run did after its failure (Step.WentOnAfterFailure); and how one task run again alone with the current
// code (engine.Graph.RerunTask) compares with what the recording saved for
// it (JudgeRerun, RecordedQuestions).
//
// The command line's replay (superstep replay, replay --rerun) and the
// debugger's (R) both read a recorded superstep with Read and judge the
// replay's superstep with Step's methods, and the command line's exec and
// the debugger's e both judge a task run alone with JudgeRerun, so both say
// the same about the same thread. The facts they rest on are the engine's: what a checkpoint's
// saved writes mean (engine.ReadSavedWrites), where a subgraph's answers
// are saved (engine.Graph.TaskAnswers), how two runs of a task's writes
// differ (engine.DiffWrites). How a replay is driven (a stepper run to the
// end, or one key at a time) and how its verdicts are worded on screen
// stay with each front end.
package recording
