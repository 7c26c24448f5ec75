/**
 * Imported first by the fuzz test: the promise is about what faultline prints of a trace, so the
 * colours picocolors adds on a CI machine or a terminal (its own escape sequences) are turned off
 * before any renderer loads it.
 */
process.env.NO_COLOR = '1';
