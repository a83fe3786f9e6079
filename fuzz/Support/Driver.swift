#if canImport(Glibc)
import Glibc
#endif

/// The signature libFuzzer calls for every input.
public typealias FuzzTarget = @convention(c) (UnsafePointer<UInt8>?, Int) -> CInt

// libFuzzer's own entry point for programs that keep their `main` (SwiftPM links an executable's
// `main` to the module's top-level code, so libFuzzer's `main` cannot be used).
@_silgen_name("LLVMFuzzerRunDriver")
private func LLVMFuzzerRunDriver(
    _ argc: UnsafeMutablePointer<CInt>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ target: FuzzTarget
) -> CInt

/// Hands the process to libFuzzer (all its flags work: `-max_total_time`, `-runs`, corpus dirs, a
/// reproducer path); never returns. `prepare` runs first: build keys and other lazy globals there, so
/// their one-time allocations are not mistaken for leaks of the first input.
public func runFuzzer(prepare: () -> Void = {}, _ target: FuzzTarget) -> Never {
    prepare()
    var argc = CommandLine.argc
    var argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>? = CommandLine.unsafeArgv
    exit(LLVMFuzzerRunDriver(&argc, &argv, target))
}

/// The input as a byte array.
public func bytes(_ data: UnsafePointer<UInt8>?, _ size: Int) -> [UInt8] {
    guard let data, size > 0 else { return [] }
    return Array(UnsafeBufferPointer(start: data, count: size))
}

/// A property failed: say which, then abort so libFuzzer saves the input as `crash-…` and exits non-zero.
public func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String,
                    file: StaticString = #fileID, line: UInt = #line) {
    if condition() { return }
    let text = "PROPERTY FAILED (\(file):\(line)): \(message())\n"
    var bytes = Array(text.utf8)
    _ = write(2, &bytes, bytes.count)   // unbuffered stderr, no shared `FILE *` (strict concurrency)
    abort()
}
