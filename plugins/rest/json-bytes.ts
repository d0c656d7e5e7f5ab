// The bytes of JSON's syntax, for the scans that read a body without parsing it.
export const SPACE = 32
export const NEWLINE = 10
export const RETURN = 13
export const TAB = 9
export const QUOTE = 34
export const BACKSLASH = 92
export const OPEN_OBJECT = 123
export const CLOSE_OBJECT = 125
export const OPEN_ARRAY = 91
export const CLOSE_ARRAY = 93
