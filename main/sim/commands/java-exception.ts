/**
 * How Android's `cmd`-based tools (input, pm, am, settings, ime) report an exception
 * thrown by the service's shell command: an empty line, "Exception occurred while
 * executing '<first arg>':", the Java stack trace on stderr, and exit status 255.
 */
import type { CommandIo } from './command-types';

export const SHELL_EXCEPTION_EXIT = 255;

const COMMON_FRAMES = [
  'com.android.modules.utils.BasicShellCommandHandler.exec(BasicShellCommandHandler.java:97)',
  'android.os.ShellCommand.exec(ShellCommand.java:38)',
];

const SERVICE_FRAMES: Record<string, string[]> = {
  input: [
    'com.android.server.input.InputManagerService.onShellCommand(InputManagerService.java:2870)',
    'android.os.Binder.shellCommand(Binder.java:1092)',
    'android.os.Binder.onTransact(Binder.java:912)',
    'android.hardware.input.IInputManager$Stub.onTransact(IInputManager.java:1422)',
  ],
  package: [
    'com.android.server.pm.PackageManagerService$IPackageManagerImpl.onShellCommand(PackageManagerService.java:6519)',
    'android.os.Binder.shellCommand(Binder.java:1092)',
    'android.os.Binder.onTransact(Binder.java:912)',
    'android.content.pm.IPackageManager$Stub.onTransact(IPackageManager.java:4352)',
  ],
};

/** Prints the exception the way BasicShellCommandHandler.exec does and returns 255. */
export function reportShellException(
  io: CommandIo,
  service: 'input' | 'package',
  firstArg: string,
  exception: string,
  throwingFrames: string[],
): number {
  const frames = [
    ...throwingFrames,
    ...COMMON_FRAMES,
    ...(SERVICE_FRAMES[service] ?? []),
    'android.os.Binder.execTransactInternal(Binder.java:1392)',
    'android.os.Binder.execTransact(Binder.java:1299)',
  ];
  io.err(
    `\nException occurred while executing '${firstArg}':\n${exception}\n${frames.map((f) => `\tat ${f}\n`).join('')}`,
  );
  return SHELL_EXCEPTION_EXIT;
}
