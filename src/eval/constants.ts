/** Names shared by the eval command and the evaluation runner, kept light for start-up. */

/** The pseudo-method that cross-validates the offline model on the evaluated traces. */
export const CROSS_VALIDATED_OFFLINE = 'offline-cv';
