/**
 * Out-File's file handling, which the redirection operators share (they run
 * Out-File on the target): PathUtils.MasterStreamOpen opens the file in
 * BeginProcessing — created or truncated, or opened to append — before the
 * command writes anything, so a failure stops the command before it runs;
 * its StreamWriter writes the encoding's BOM only at the start of the file.
 * Windows PowerShell 5.1 writes "Unicode" (UTF-16 LE with BOM) unless told
 * otherwise, PowerShell 7 UTF-8 without a BOM.
 */
import type { ContainerFS } from './fs.js';
import type { TextEncoding } from './text-encoding.js';

/** The .NET exception a failed open raises, with its message (what the error record shows). */
export interface OpenFailure {
  exception: 'DirectoryNotFoundException' | 'UnauthorizedAccessException';
  message: string;
}

/** The default encoding of Out-File (and so of `>`) in each PowerShell. */
export function outFileDefault(version: 5 | 7): TextEncoding {
  return version === 5 ? 'utf16le' : 'utf8';
}

/**
 * Opens `abs` as FileStream(FileMode.Create or Append) would: the file is
 * there (empty but for the BOM, when truncated) afterwards. A missing
 * directory is DirectoryNotFoundException; a read-only mount or file, and a
 * directory, UnauthorizedAccessException.
 */
export function openOutFile(fs: ContainerFS, abs: string, append: boolean, enc: TextEncoding): OpenFailure | undefined {
  const r = fs.write(abs, '', append, enc);
  if (r === 'ok') return undefined;
  if (r === 'no-dir') return { exception: 'DirectoryNotFoundException', message: `Could not find a part of the path '${abs}'.` };
  return { exception: 'UnauthorizedAccessException', message: `Access to the path '${abs}' is denied.` };
}

/** Writes what a stream sends to an opened Out-File target. */
export function writeOutFile(fs: ContainerFS, abs: string, text: string, enc: TextEncoding): void {
  fs.write(abs, text, true, enc);
}
