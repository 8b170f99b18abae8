// Preloaded into a test's child process (node --import): shifts this process's clock by
// RADAR_TEST_CLOCK_OFFSET_MS (e.g. -300000: five minutes behind), as a platform whose clock is
// off would be. Date (now and new Date()) and performance.now() are shifted; nothing else is.
const offset = Number(process.env.RADAR_TEST_CLOCK_OFFSET_MS ?? 0);
if (offset) {
  const RealDate = Date;
  const realNow = RealDate.now.bind(RealDate);
  class ShiftedDate extends RealDate {
    constructor(...args) {
      if (args.length === 0) super(realNow() + offset);
      else super(...args);
    }
    static now() {
      return realNow() + offset;
    }
  }
  globalThis.Date = ShiftedDate;
  const realPerfNow = performance.now.bind(performance);
  performance.now = () => realPerfNow() + offset;
}
