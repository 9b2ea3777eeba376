// The one virtual clock lives with the code that runs schedules on virtual time outside tests too.
export { VirtualClock } from "../../src/util/virtual-clock.js";
