/**
 * The real driver factory with some of each driver's reports observed on their way to the meeting
 * actor: `observe` gives, per meeting, the listener methods to stand in for (each calls the
 * actor's own itself); every other report passes straight through.
 */
import type {
  DriverFactory,
  DriverListener,
  JoinTarget,
} from '../../../services/meeting-session/src/drivers/driver.js';

export function observedDrivers(
  real: DriverFactory,
  observe: (target: JoinTarget, actor: DriverListener) => Partial<DriverListener>,
): DriverFactory {
  return {
    create(target) {
      const driver = real.create(target);
      return {
        // The actor's listener is a plain object of arrow functions: spreading it keeps each one.
        start: (actor: DriverListener) => driver.start({ ...actor, ...observe(target, actor) }),
        leave: () => driver.leave(),
      };
    },
    close: () => real.close(),
  };
}

/**
 * The real driver factory with the pages' audio observed (`observe` gives the listener methods to
 * stand in for, per meeting, as above), and each failed audio capture printed.
 */
export function audioObservedDrivers(
  real: DriverFactory,
  observe: (meetingId: string, actor: DriverListener) => Partial<DriverListener>,
): DriverFactory {
  return observedDrivers(real, (target, actor) => ({
    ...observe(target.meetingId, actor),
    audioFailed: (detail) => {
      console.log(`   ${target.meetingId}: audio capture failed: ${detail}`);
      actor.audioFailed(detail);
    },
  }));
}
