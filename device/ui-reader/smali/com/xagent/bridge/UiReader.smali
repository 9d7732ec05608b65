# xagent UI reader, protocol 1 (device/ui-reader/README.md).
#
# Started by the bridge with app_process as the shell user, in the foreground of one adb exec:
# stream. Reads request lines on stdin, answers on stdout; opens no socket of any kind.
# The Java it corresponds to, for the reader of this file:
#
#   main(args):   args must be ["1", dumpPath], else "error usage", exit 2.
#                 wrapper = new UiAutomationShellWrapper(); wrapper.connect();
#                 (failure: "error connect <why>", exit 1)
#                 wrapper.setCompressedLayoutHierarchy(false)  -- the full tree, as stock dump
#                 "xagent-ui-reader 1 ready <pid>"
#                 for each stdin line until EOF or "quit": serve(line); flush
#                 wrapper.disconnect(); exit 0
#   serve(line):  "tree R W H"  -> waitIdle; freshNodes; root = getRootInActiveWindow()
#                 "focus R W H" -> freshNodes; root = getRootInActiveWindow()?.findFocus(FOCUS_INPUT)
#                 root == null -> "none"; else dumpWindowToFile(root, dump, R, W, H) and
#                 "<kind> <n>" + the file's n bytes (the file is deleted at once)
#                 anything thrown -> "error <one line>"; the reader goes on.

.class public final Lcom/xagent/bridge/UiReader;
.super Ljava/lang/Object;
.source "UiReader.smali"


.method private constructor <init>()V
    .locals 0
    invoke-direct {p0}, Ljava/lang/Object;-><init>()V
    return-void
.end method


.method public static main([Ljava/lang/String;)V
    .locals 7
    # v0 stdout, v1 scratch, v2 the UiAutomation wrapper, v3 UiAutomation, v4 the dump file,
    # v5 stdin's reader, v6 the request line
    sget-object v0, Ljava/lang/System;->out:Ljava/io/PrintStream;

    array-length v1, p0
    const/4 v2, 0x2
    if-ne v1, v2, :usage
    const/4 v1, 0x0
    aget-object v1, p0, v1
    const-string v2, "1"
    invoke-virtual {v2, v1}, Ljava/lang/String;->equals(Ljava/lang/Object;)Z
    move-result v1
    if-eqz v1, :usage

    new-instance v4, Ljava/io/File;
    const/4 v1, 0x1
    aget-object v1, p0, v1
    invoke-direct {v4, v1}, Ljava/io/File;-><init>(Ljava/lang/String;)V

    :connect_start
    new-instance v2, Lcom/android/uiautomator/core/UiAutomationShellWrapper;
    invoke-direct {v2}, Lcom/android/uiautomator/core/UiAutomationShellWrapper;-><init>()V
    invoke-virtual {v2}, Lcom/android/uiautomator/core/UiAutomationShellWrapper;->connect()V
    invoke-virtual {v2}, Lcom/android/uiautomator/core/UiAutomationShellWrapper;->getUiAutomation()Landroid/app/UiAutomation;
    move-result-object v3
    :connect_end
    .catch Ljava/lang/Throwable; {:connect_start .. :connect_end} :connect_failed

    invoke-static {v2}, Lcom/xagent/bridge/UiReader;->fullTree(Lcom/android/uiautomator/core/UiAutomationShellWrapper;)V

    new-instance v1, Ljava/lang/StringBuilder;
    invoke-direct {v1}, Ljava/lang/StringBuilder;-><init>()V
    const-string v5, "xagent-ui-reader 1 ready "
    invoke-virtual {v1, v5}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    invoke-static {}, Landroid/os/Process;->myPid()I
    move-result v5
    invoke-virtual {v1, v5}, Ljava/lang/StringBuilder;->append(I)Ljava/lang/StringBuilder;
    const/16 v5, 0xa
    invoke-virtual {v1, v5}, Ljava/lang/StringBuilder;->append(C)Ljava/lang/StringBuilder;
    invoke-virtual {v1}, Ljava/lang/StringBuilder;->toString()Ljava/lang/String;
    move-result-object v1
    invoke-virtual {v0, v1}, Ljava/io/PrintStream;->print(Ljava/lang/String;)V
    invoke-virtual {v0}, Ljava/io/PrintStream;->flush()V

    new-instance v5, Ljava/io/BufferedReader;
    new-instance v1, Ljava/io/InputStreamReader;
    sget-object v6, Ljava/lang/System;->in:Ljava/io/InputStream;
    sget-object p0, Ljava/nio/charset/StandardCharsets;->UTF_8:Ljava/nio/charset/Charset;
    invoke-direct {v1, v6, p0}, Ljava/io/InputStreamReader;-><init>(Ljava/io/InputStream;Ljava/nio/charset/Charset;)V
    invoke-direct {v5, v1}, Ljava/io/BufferedReader;-><init>(Ljava/io/Reader;)V

    :next_request
    :read_start
    invoke-virtual {v5}, Ljava/io/BufferedReader;->readLine()Ljava/lang/String;
    move-result-object v6
    :read_end
    .catch Ljava/lang/Throwable; {:read_start .. :read_end} :finish
    if-eqz v6, :finish
    const-string v1, "quit"
    invoke-virtual {v1, v6}, Ljava/lang/String;->equals(Ljava/lang/Object;)Z
    move-result v1
    if-nez v1, :finish
    invoke-static {v3, v4, v0, v6}, Lcom/xagent/bridge/UiReader;->serve(Landroid/app/UiAutomation;Ljava/io/File;Ljava/io/PrintStream;Ljava/lang/String;)V
    invoke-virtual {v0}, Ljava/io/PrintStream;->flush()V
    goto :next_request

    :finish
    invoke-static {v2}, Lcom/xagent/bridge/UiReader;->disconnect(Lcom/android/uiautomator/core/UiAutomationShellWrapper;)V
    invoke-virtual {v0}, Ljava/io/PrintStream;->flush()V
    const/4 v1, 0x0
    invoke-static {v1}, Ljava/lang/System;->exit(I)V
    return-void

    :connect_failed
    move-exception v1
    invoke-static {v1}, Lcom/xagent/bridge/UiReader;->oneLine(Ljava/lang/Throwable;)Ljava/lang/String;
    move-result-object v1
    const-string v2, "error connect "
    invoke-static {v0, v2, v1}, Lcom/xagent/bridge/UiReader;->printLine(Ljava/io/PrintStream;Ljava/lang/String;Ljava/lang/String;)V
    const/4 v1, 0x1
    invoke-static {v1}, Ljava/lang/System;->exit(I)V
    return-void

    :usage
    const-string v1, "error usage"
    const-string v2, ""
    invoke-static {v0, v1, v2}, Lcom/xagent/bridge/UiReader;->printLine(Ljava/io/PrintStream;Ljava/lang/String;Ljava/lang/String;)V
    const/4 v1, 0x2
    invoke-static {v1}, Ljava/lang/System;->exit(I)V
    return-void
.end method


# One request: "tree R W H" or "focus R W H". Never throws: a failure is an "error" line.
.method private static serve(Landroid/app/UiAutomation;Ljava/io/File;Ljava/io/PrintStream;Ljava/lang/String;)V
    .locals 8
    # v0 words, v1 kind, v2 rotation, v3 width, v4 height, v5 root then bytes, v6-v7 scratch
    :try_start
    const-string v0, " "
    invoke-virtual {p3, v0}, Ljava/lang/String;->split(Ljava/lang/String;)[Ljava/lang/String;
    move-result-object v0
    array-length v1, v0
    const/4 v2, 0x4
    if-ne v1, v2, :bad_request
    const/4 v1, 0x0
    aget-object v1, v0, v1
    const/4 v2, 0x1
    aget-object v2, v0, v2
    invoke-static {v2}, Ljava/lang/Integer;->parseInt(Ljava/lang/String;)I
    move-result v2
    const/4 v3, 0x2
    aget-object v3, v0, v3
    invoke-static {v3}, Ljava/lang/Integer;->parseInt(Ljava/lang/String;)I
    move-result v3
    const/4 v4, 0x3
    aget-object v4, v0, v4
    invoke-static {v4}, Ljava/lang/Integer;->parseInt(Ljava/lang/String;)I
    move-result v4

    const-string v5, "tree"
    invoke-virtual {v5, v1}, Ljava/lang/String;->equals(Ljava/lang/Object;)Z
    move-result v5
    if-eqz v5, :not_tree
    invoke-static {p0}, Lcom/xagent/bridge/UiReader;->waitIdle(Landroid/app/UiAutomation;)V
    invoke-static {p0}, Lcom/xagent/bridge/UiReader;->freshNodes(Landroid/app/UiAutomation;)V
    invoke-virtual {p0}, Landroid/app/UiAutomation;->getRootInActiveWindow()Landroid/view/accessibility/AccessibilityNodeInfo;
    move-result-object v5
    goto :have_answer

    :not_tree
    const-string v5, "focus"
    invoke-virtual {v5, v1}, Ljava/lang/String;->equals(Ljava/lang/Object;)Z
    move-result v5
    if-eqz v5, :bad_request
    invoke-static {p0}, Lcom/xagent/bridge/UiReader;->freshNodes(Landroid/app/UiAutomation;)V
    invoke-virtual {p0}, Landroid/app/UiAutomation;->getRootInActiveWindow()Landroid/view/accessibility/AccessibilityNodeInfo;
    move-result-object v5
    if-eqz v5, :have_answer
    const/4 v6, 0x1
    invoke-virtual {v5, v6}, Landroid/view/accessibility/AccessibilityNodeInfo;->findFocus(I)Landroid/view/accessibility/AccessibilityNodeInfo;
    move-result-object v5

    :have_answer
    if-nez v5, :dump
    const-string v6, "none"
    const-string v7, ""
    invoke-static {p2, v6, v7}, Lcom/xagent/bridge/UiReader;->printLine(Ljava/io/PrintStream;Ljava/lang/String;Ljava/lang/String;)V
    return-void

    :dump
    invoke-virtual {p1}, Ljava/io/File;->delete()Z
    invoke-static {v5, p1, v2, v3, v4}, Lcom/android/uiautomator/core/AccessibilityNodeInfoDumper;->dumpWindowToFile(Landroid/view/accessibility/AccessibilityNodeInfo;Ljava/io/File;III)V
    invoke-static {p1}, Lcom/xagent/bridge/UiReader;->readAndDelete(Ljava/io/File;)[B
    move-result-object v5
    array-length v6, v5
    new-instance v7, Ljava/lang/StringBuilder;
    invoke-direct {v7}, Ljava/lang/StringBuilder;-><init>()V
    invoke-virtual {v7, v1}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    const/16 v0, 0x20
    invoke-virtual {v7, v0}, Ljava/lang/StringBuilder;->append(C)Ljava/lang/StringBuilder;
    invoke-virtual {v7, v6}, Ljava/lang/StringBuilder;->append(I)Ljava/lang/StringBuilder;
    const/16 v0, 0xa
    invoke-virtual {v7, v0}, Ljava/lang/StringBuilder;->append(C)Ljava/lang/StringBuilder;
    invoke-virtual {v7}, Ljava/lang/StringBuilder;->toString()Ljava/lang/String;
    move-result-object v7
    invoke-virtual {p2, v7}, Ljava/io/PrintStream;->print(Ljava/lang/String;)V
    const/4 v0, 0x0
    invoke-virtual {p2, v5, v0, v6}, Ljava/io/PrintStream;->write([BII)V
    :try_end
    .catch Ljava/lang/Throwable; {:try_start .. :try_end} :failed
    return-void

    :bad_request
    const-string v6, "error bad-request"
    const-string v7, ""
    invoke-static {p2, v6, v7}, Lcom/xagent/bridge/UiReader;->printLine(Ljava/io/PrintStream;Ljava/lang/String;Ljava/lang/String;)V
    return-void

    :failed
    move-exception v6
    invoke-static {v6}, Lcom/xagent/bridge/UiReader;->oneLine(Ljava/lang/Throwable;)Ljava/lang/String;
    move-result-object v6
    const-string v7, "error "
    invoke-static {p2, v7, v6}, Lcom/xagent/bridge/UiReader;->printLine(Ljava/io/PrintStream;Ljava/lang/String;Ljava/lang/String;)V
    return-void
.end method


# As agent-device's snapshot helper: 100 ms without accessibility events, at most 500 ms in all.
# A screen that never settles (an animation) is read as it is: the timeout is not an error.
.method private static waitIdle(Landroid/app/UiAutomation;)V
    .locals 4
    :wait_start
    const-wide/16 v0, 0x64
    const-wide/16 v2, 0x1f4
    invoke-virtual {p0, v0, v1, v2, v3}, Landroid/app/UiAutomation;->waitForIdle(JJ)V
    :wait_end
    .catch Ljava/lang/Throwable; {:wait_start .. :wait_end} :not_idle
    return-void

    :not_idle
    return-void
.end method


# Every walk reads the nodes from the phone, not from this connection's cache. A UiAutomation
# that stays connected keeps an AccessibilityNodeInfo cache, and a subtree re-cached while its
# invalidation raced a content change is served to every later walk: a stale screen until the
# reader restarts (mobile-next/mobilecli#439, software-mansion/argent#591,
# appium/appium-uiautomator2-server#730). Android 14+ has UiAutomation.clearCache(); on older
# releases the call fails to link (NoSuchMethodError) and setServiceInfo, given the connection's
# own service info back, clears the process's cache as it applies it (what Appium's server
# relies on). A failure of both is not fatal: the walk goes on (the old behaviour).
.method private static freshNodes(Landroid/app/UiAutomation;)V
    .locals 1
    :clear_start
    invoke-virtual {p0}, Landroid/app/UiAutomation;->clearCache()Z
    :clear_end
    .catch Ljava/lang/Throwable; {:clear_start .. :clear_end} :before_android_14
    return-void

    :before_android_14
    :info_start
    invoke-virtual {p0}, Landroid/app/UiAutomation;->getServiceInfo()Landroid/accessibilityservice/AccessibilityServiceInfo;
    move-result-object v0
    if-eqz v0, :info_end
    invoke-virtual {p0, v0}, Landroid/app/UiAutomation;->setServiceInfo(Landroid/accessibilityservice/AccessibilityServiceInfo;)V
    :info_end
    .catch Ljava/lang/Throwable; {:info_start .. :info_end} :not_cleared
    return-void

    :not_cleared
    return-void
.end method


# Stock `uiautomator dump` without --compressed: views not important for accessibility included.
# A release without the setter keeps its default (reported in the tree's quality, not fatal).
.method private static fullTree(Lcom/android/uiautomator/core/UiAutomationShellWrapper;)V
    .locals 1
    :set_start
    const/4 v0, 0x0
    invoke-virtual {p0, v0}, Lcom/android/uiautomator/core/UiAutomationShellWrapper;->setCompressedLayoutHierarchy(Z)V
    :set_end
    .catch Ljava/lang/Throwable; {:set_start .. :set_end} :kept_default
    return-void

    :kept_default
    return-void
.end method


.method private static disconnect(Lcom/android/uiautomator/core/UiAutomationShellWrapper;)V
    .locals 0
    :disconnect_start
    invoke-virtual {p0}, Lcom/android/uiautomator/core/UiAutomationShellWrapper;->disconnect()V
    :disconnect_end
    .catch Ljava/lang/Throwable; {:disconnect_start .. :disconnect_end} :gone
    return-void

    :gone
    return-void
.end method


# The dumper's file, whole; deleted whether or not it could be read.
.method private static readAndDelete(Ljava/io/File;)[B
    .locals 4
    new-instance v0, Ljava/io/RandomAccessFile;
    const-string v1, "r"
    invoke-direct {v0, p0, v1}, Ljava/io/RandomAccessFile;-><init>(Ljava/io/File;Ljava/lang/String;)V
    :read_start
    invoke-virtual {v0}, Ljava/io/RandomAccessFile;->length()J
    move-result-wide v1
    long-to-int v1, v1
    new-array v1, v1, [B
    invoke-virtual {v0, v1}, Ljava/io/RandomAccessFile;->readFully([B)V
    :read_end
    .catchall {:read_start .. :read_end} :failed
    invoke-virtual {v0}, Ljava/io/RandomAccessFile;->close()V
    invoke-virtual {p0}, Ljava/io/File;->delete()Z
    return-object v1

    :failed
    move-exception v2
    invoke-virtual {v0}, Ljava/io/RandomAccessFile;->close()V
    invoke-virtual {p0}, Ljava/io/File;->delete()Z
    throw v2
.end method


# prefix + detail + "\n", flushed.
.method private static printLine(Ljava/io/PrintStream;Ljava/lang/String;Ljava/lang/String;)V
    .locals 2
    new-instance v0, Ljava/lang/StringBuilder;
    invoke-direct {v0}, Ljava/lang/StringBuilder;-><init>()V
    invoke-virtual {v0, p1}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    invoke-virtual {v0, p2}, Ljava/lang/StringBuilder;->append(Ljava/lang/String;)Ljava/lang/StringBuilder;
    const/16 v1, 0xa
    invoke-virtual {v0, v1}, Ljava/lang/StringBuilder;->append(C)Ljava/lang/StringBuilder;
    invoke-virtual {v0}, Ljava/lang/StringBuilder;->toString()Ljava/lang/String;
    move-result-object v0
    invoke-virtual {p0, v0}, Ljava/io/PrintStream;->print(Ljava/lang/String;)V
    invoke-virtual {p0}, Ljava/io/PrintStream;->flush()V
    return-void
.end method


# A throwable's class and message on one line (the protocol is line-framed).
.method private static oneLine(Ljava/lang/Throwable;)Ljava/lang/String;
    .locals 3
    invoke-virtual {p0}, Ljava/lang/Throwable;->toString()Ljava/lang/String;
    move-result-object v0
    const/16 v1, 0xa
    const/16 v2, 0x20
    invoke-virtual {v0, v1, v2}, Ljava/lang/String;->replace(CC)Ljava/lang/String;
    move-result-object v0
    const/16 v1, 0xd
    invoke-virtual {v0, v1, v2}, Ljava/lang/String;->replace(CC)Ljava/lang/String;
    move-result-object v0
    return-object v0
.end method
