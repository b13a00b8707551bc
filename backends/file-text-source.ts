/** A stored file's name and the text extracted from it on save. */
export interface ExtractedFileText {
  filename: string;
  text: string;
}

/**
 * Where chat reads stored files' text (`file.file_id` parts). Answers null for a file that does
 * not exist or belongs to another account: the two must look the same to the caller.
 */
export interface FileTextSource {
  extractedText(accountId: string, fileId: string): Promise<ExtractedFileText | null>;
}

/** The source until the files feature exists: no file is ever found. */
export const noFileTextSource: FileTextSource = {
  extractedText: () => Promise.resolve(null),
};
