// wsx quick switcher (Ctrl/⌘+K, Korean initial consonants) and the composer's @ member picker.
'use strict';
