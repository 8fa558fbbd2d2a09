// Package workers is the editor's job executor: a fixed pool of worker
// goroutines shared fairly between actors (project roots), with lanes that
// give order where order matters and bound concurrency where it is costly.
//
// # Topology
//
//	Submit ──► actor queue (FIFO) ──► deficit round robin ──► idle worker
//	  ▲             per actor           across actors              │
//	  │                                                  run under the actor's
//	  │                                                  gate (or, ctx ended,
//	  │                                                  not at all)
//	  └─────── finishing worker admits the next job ◄── Done ◄────┘
//
// There is no scheduler goroutine. The scheduling state lives under one
// mutex and is driven by the two events that can change it: a submit (which
// may admit the new job at once) and a worker finishing a job (which releases
// its slot and admits more, keeping the first for itself). Admitted jobs
// reach other idle workers over a channel that is never full. A no-op job
// therefore costs two goroutine hand-offs, the same as a bare worker pool.
//
// # Scheduling
//
// Each actor's jobs are admitted strictly in submission order: only the head
// of an actor's queue is ever considered. Actors with queued jobs sit on a
// ring visited in deficit round robin: a visit earns Config.Quantum credit
// (banked up to 4*ActorCap) and each job started costs one, so a busy actor
// cannot starve another. An actor earns no credit while its head cannot start.
//
// The head starts only when its lane allows it:
//
//   - LaneRead: fewer than ReadCap reads of the actor in flight, and no
//     mutating job of the actor in flight. Runs holding the actor's gate shared.
//   - LaneSerial: no other serial job of the actor in flight, no mutating job
//     in flight. Runs holding the gate shared.
//   - LaneHeavy: a free process-wide heavy permit. Runs outside the gate, then
//     takes the gate exclusively for an instant (the install point) before it
//     settles.
//   - LaneMutating: no read, serial or mutating job of the actor in flight.
//     Because admission is FIFO, once a mutating job is at the head nothing
//     behind it starts: in-flight reads drain, the job runs holding the gate
//     exclusively, and reads queued after it see its effects. Mutating jobs of
//     one actor run one at a time, in submission order.
//   - LaneStream: no mutating job of the actor in flight. Runs holding no
//     gate at all: a mutating job submitted after a stream has started does
//     not wait for it.
//
// In every lane an actor has at most ActorCap jobs in flight, not counting
// parked ones (below).
//
// # Ordering promise
//
// Per actor, what remains once streams hold no gate:
//
//   - mutating jobs run one at a time, in submission order;
//   - a read or serial job submitted after a mutating job starts after it
//     has finished and sees its effects; one submitted before it finishes
//     before the mutating job starts (unless it parks, which gives up the
//     gate until it leaves the parking section);
//   - a stream job starts after every mutating job submitted before it has
//     finished, but is not ordered against mutating jobs submitted after it
//     started: they run while it runs, and it may or may not see their
//     effects;
//   - a heavy job builds outside the gate and settles after its install
//     point, which waits for a mutating job in flight.
//
// # Parking
//
// A job that waits on something outside the executor (its consumer, a
// reply, a process) wraps the wait in Actor.Park. While parked it holds no
// worker slot, no ActorCap slot and, except in the mutating lane, no gate;
// if admissible work is queued and no worker goroutine is free, a
// substitute goroutine runs it, and the pool shrinks back to PoolSize as
// workers go idle. Leaving the section takes the slots back without
// waiting, so caps may be exceeded briefly. Apart from the barrier a parked
// mutating job keeps, nothing in the executor waits on a parked job, so a
// consumer that waits for later work of the same actor cannot deadlock with
// a producer parked on it.
//
// # Submitting and cancelling
//
// There is one way in: Submit takes the context the job runs under and a
// Task (actor, lane, name, the job, and Done, which receives the Result
// exactly once). The job gets the context and should watch it; the executor
// itself looks at it once, when a worker would start the job, and does not
// run a job whose context has ended by then (see Submit). A Task with a Key
// shares one execution among the submits of the same key, as singleflight
// does.
//
// # Failures
//
// A job's own error is returned as is. The executor settles with an *Error
// (match with errors.Is against ErrActorNotRegistered, ErrInternal,
// ErrActorFatal, ErrShutdown, ErrInvalidArgument, ErrCanceled):
//
//   - a submit to an unregistered actor, a fatal actor, a closed executor, or
//     with an unknown lane, a nil job or a nil context settles at once, before
//     Submit returns;
//   - a job whose context had ended when a worker reached it settles with
//     canceled, matching the context's error and its cause as well;
//   - a job that panics (or calls runtime.Goexit) settles with internal_error
//     naming the job and the panic, and its worker carries on (or is
//     replaced);
//   - a mutating job that panics also makes its actor fatal: the actor's
//     queued jobs settle with actor_fatal and so does every later submit to
//     it. The actor is fatal before the panic's own Result is delivered.
//     FatalActors lists fatal actors with the panic's error as the reason,
//     and ResetActor makes one accept jobs again once every job of it that
//     was still running has ended.
//
// # Concurrency contract
//
// Every method of Executor is safe for concurrent use from any goroutine.
// A Task's Done runs without any executor lock held, so it may submit more
// work; it must not block for long, since it usually holds a worker. Close
// must not be called from a job or a Done. Each job settles exactly once.
//
// Close stops admission, settles every queued job with ErrShutdown, waits for
// the running jobs and joins every goroutine the executor started, but never
// for longer than DefaultCloseWait (Shutdown takes the bound from a
// context): a job stuck in a system call is left running with its worker
// goroutine, and its late Result is still delivered when it returns.
package workers
