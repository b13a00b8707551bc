// A machine's named actions and guards are typed against its own events, which do not include the
// done and error events of the effects it invokes; a transition's `onDone` / `onError` does know
// them, typed from the effect's declaration in `setup({ actors })`. These hand an effect's result
// to a named action or guard as its params (`{ type: 'recordPoll', params: effectOutput }`), so
// the output stays typed and checked against what the action declares, with no cast and no
// explicit invoke id (persisted snapshots name their children by the ids XState generated).

/** The output of an effect's done event, as the params of a named action or guard. */
export const effectOutput = <Output>({ event }: { event: { output: Output } }): Output => event.output;

/** What an effect threw, from its error event, as the params of a named action or guard. */
export const effectError = ({ event }: { event: { error: unknown } }): unknown => event.error;
