import Foundation
import GRDB

/// Whether an error means the data folder cannot take writes: the disk is full, over quota,
/// read-only or failing. Such a write was rolled back whole (SQLite's transaction, or a file
/// not adopted), so the person gets a 503 to try again later, reads go on, and the first write
/// after room returns simply works.
enum StorageFailure {
    static func explains(_ error: any Error) -> Bool {
        if let error = error as? DatabaseError {
            return [.SQLITE_FULL, .SQLITE_IOERR, .SQLITE_READONLY, .SQLITE_CANTOPEN].contains(error.resultCode)
        }
        if let error = error as? POSIXError { return unwritable.contains(error.code.rawValue) }
        if let error = error as? CocoaError {
            return [.fileWriteOutOfSpace, .fileWriteVolumeReadOnly].contains(error.code)
        }
        let error = error as NSError
        if error.domain == NSPOSIXErrorDomain { return unwritable.contains(Int32(error.code)) }
        if let underlying = error.userInfo[NSUnderlyingErrorKey] as? NSError, underlying.domain == NSPOSIXErrorDomain {
            return unwritable.contains(Int32(underlying.code))
        }
        return false
    }

    /// No space, over quota, a read-only file system, an I/O error.
    private static let unwritable: Set<Int32> = [ENOSPC, EDQUOT, EROFS, EIO]
}
