package assembler

// MaxIncludeDepth is how deep includes may nest.
const MaxIncludeDepth = 10

// MaxOutputBytes bounds one rendering: includes that repeat each other can
// otherwise multiply a few bytes into gigabytes.
const MaxOutputBytes = 8 << 20
