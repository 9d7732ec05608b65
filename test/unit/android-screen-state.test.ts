/**
 * screen-state.ts against the lines real phones print (formats as Appium's appium-adb
 * lockmgmt reads them, and AOSP's KeyguardServiceDelegate.dump / PowerManagerService.dump).
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDfAvailableKib, parseKeyguard, parseWakefulness } from '../../main/core/android/screen-state';

void describe('screen state parsers', () => {
  void test('mWakefulness of dumpsys power', () => {
    assert.equal(
      parseWakefulness('Power Manager State:\n  mDirty=0x0\n  mWakefulness=Dozing\n  mWakefulnessChanging=false\n'),
      'Dozing',
    );
    assert.equal(parseWakefulness('  mWakefulness=Awake\n'), 'Awake');
    assert.equal(parseWakefulness('  mWakefulness=Asleep\r\n'), 'Asleep');
    assert.equal(parseWakefulness('Display Power: state=ON\n'), null, 'nothing known is null, never a guess');
  });

  void test('Android 10+: KeyguardServiceDelegate with secure', () => {
    const out = [
      '    KeyguardServiceDelegate',
      '      showing=true',
      '      showingAndNotOccluded=true',
      '      inputRestricted=true',
      '      occluded=false',
      '      secure=true',
      '      dreaming=false',
      '      KeyguardStateMonitor',
      '        mIsShowing=true',
      '        mSimSecure=false',
      '',
    ].join('\n');
    assert.deepEqual(parseKeyguard(out), { showing: true, secure: true });
    assert.deepEqual(
      parseKeyguard(out.replace('showing=true\n', 'showing=false\n').replace('secure=true', 'secure=false')),
      { showing: false, secure: false },
    );
  });

  void test('KeyguardStateMonitor alone', () => {
    assert.deepEqual(
      parseKeyguard(
        '      KeyguardStateMonitor\n        mIsShowing=true\n        mSimSecure=false\n        mInputRestricted=true\n',
      ),
      { showing: true, secure: false },
    );
  });

  void test('Android 8-9: mShowingLockscreen / mDreamingLockscreen', () => {
    assert.deepEqual(
      parseKeyguard(
        '    mShowingLockscreen=true mShowingDream=false mDreamingLockscreen=false mDreamingSleepToken=null\n',
      ),
      { showing: true, secure: null },
    );
    assert.deepEqual(parseKeyguard('    mShowingLockscreen=false mShowingDream=false mDreamingLockscreen=true\n'), {
      showing: true,
      secure: null,
    });
    assert.deepEqual(parseKeyguard('    mShowingLockscreen=false mShowingDream=false mDreamingLockscreen=false\n'), {
      showing: false,
      secure: null,
    });
    assert.equal(parseKeyguard('WINDOW MANAGER POLICY STATE\n    mSafeMode=false\n'), null);
  });

  void test('df /data (toybox): the Available column in KiB', () => {
    const out =
      'Filesystem      1K-blocks    Used Available Use% Mounted on\n/dev/block/dm-8 115084092 9876543 105207549   9% /data\n';
    assert.equal(parseDfAvailableKib(out), 105207549);
    assert.equal(
      parseDfAvailableKib('Filesystem  Size  Used Avail Use% Mounted on\n/dev/block/dm-8 110G 9.4G 100G 9% /data\n'),
      100 * 1024 * 1024,
    );
    assert.equal(parseDfAvailableKib('df: /data: Permission denied\n'), null);
  });
});
